// swift-tools-version: 6.0
// farm's tools: what bin/chaos, bin/cluster, bin/benchmark and bin/fuzz run beside farm, and the probe the
// crash tests drive, in a package of their own that depends on farm's (its modules, and the origin and fixtures
// its tests keep in Tests/) and never the other way. Built into farm's own build folder, so that the modules
// both use are compiled once: `swift build --package-path Sources/Tools --scratch-path .build --product farm-chaos`.
import PackageDescription

/// A module of farm's (its package's library products, one a module).
func farm(_ module: String) -> Target.Dependency { .product(name: module, package: "farm") }

let package = Package(
    name: "farm-tools",
    products: [
        .executable(name: "farm-probe", targets: ["farm-probe"]),
        .executable(name: "farm-benchmark", targets: ["farm-benchmark"]),
        .executable(name: "farm-chaos", targets: ["farm-chaos"]),
        .executable(name: "farm-fuzz-json", targets: ["farm-fuzz-json"]),
        .executable(name: "farm-fuzz-manifest", targets: ["farm-fuzz-manifest"]),
        .executable(name: "farm-fuzz-zip", targets: ["farm-fuzz-zip"]),
        .executable(name: "farm-fuzz-records", targets: ["farm-fuzz-records"]),
        .executable(name: "farm-fuzz-pages", targets: ["farm-fuzz-pages"]),
        .executable(name: "farm-fuzz-image", targets: ["farm-fuzz-image"]),
        .executable(name: "farm-fuzz-requests", targets: ["farm-fuzz-requests"]),
        .executable(name: "farm-fuzz-headers", targets: ["farm-fuzz-headers"]),
        .executable(name: "farm-fuzz-rpc", targets: ["farm-fuzz-rpc"]),
    ],
    dependencies: [
        .package(name: "farm", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // Runs the spool one step at a time, `farm add` and `farm top`, with crash points, for the crash tests.
        .executableTarget(name: "farm-probe", dependencies: [
            farm("FarmSpool"), farm("FarmLists"), farm("FarmControl"), farm("FarmPages"), farm("FarmFollower"),
            farm("FarmTop"), farm("FarmSystem"), farm("FarmWorker"), farm("FarmDesired"), farm("FarmRegistry"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "FarmProbe"),
        // The benchmark (`bin/benchmark`): farm against its peers, claims, roles, control, status lag, render;
        // RESULTS.md keeps what it measured.
        .executableTarget(name: "farm-benchmark", dependencies: [
            "FarmCluster", farm("FarmFixtures"), farm("FarmOrigin"),
            farm("FarmJSON"), farm("FarmSpool"), farm("FarmLists"), farm("FarmStatus"), farm("FarmConvert"),
            farm("FarmSystem"), farm("FarmTransfer"), farm("FarmPieces"), farm("FarmRegistry"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], path: "FarmBenchmark", exclude: ["RESULTS.md"]),
        // A GlusterFS volume and farm hosts as namespaces on this machine, and the ledger that removes them:
        // for the chaos runner's cluster mode (`bin/cluster`) and the benchmark.
        .target(name: "FarmCluster", dependencies: [farm("FarmSystem")], path: "FarmCluster"),
        // The chaos runner (`bin/chaos`, `bin/cluster`): kills farm processes at random under load, then proves
        // nothing was lost.
        .executableTarget(name: "farm-chaos", dependencies: [
            "FarmCluster", farm("FarmFixtures"), farm("FarmOrigin"),
            farm("FarmJSON"), farm("FarmSpool"), farm("FarmLists"), farm("FarmStatus"), farm("FarmZip"),
            farm("FarmConvert"), farm("FarmSystem"), farm("FarmFsck"), farm("FarmManifest"), farm("FarmSync"), farm("FarmHooks"),
            farm("FarmDesired"), farm("FarmChaosReport"), farm("FarmRegistry"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Crypto", package: "swift-crypto"),
        ], path: "FarmChaos"),
        // libFuzzer targets (`bin/fuzz`), one a parser of bytes farm did not write; built only with
        // `--sanitize=fuzzer --sanitize=address`, in a build folder of their own.
        .executableTarget(name: "farm-fuzz-json", dependencies: [farm("FarmJSON")], path: "FarmFuzz/JSON"),
        .executableTarget(name: "farm-fuzz-manifest", dependencies: [
            "FarmFuzzScratch", farm("FarmManifest"), farm("FarmJSON"),
        ], path: "FarmFuzz/Manifest"),
        .executableTarget(name: "farm-fuzz-zip", dependencies: ["FarmFuzzScratch", farm("FarmZip")], path: "FarmFuzz/Zip"),
        .executableTarget(name: "farm-fuzz-records", dependencies: [
            farm("FarmSpool"), farm("FarmDedup"), farm("FarmLists"), farm("FarmJSON"),
        ], path: "FarmFuzz/Records"),
        .executableTarget(name: "farm-fuzz-pages", dependencies: [
            farm("FarmPages"), farm("FarmSpool"), farm("FarmLists"),
        ], path: "FarmFuzz/Pages"),
        .executableTarget(name: "farm-fuzz-image", dependencies: ["FarmFuzzScratch", farm("FarmConvert")],
                          path: "FarmFuzz/Image"),
        .executableTarget(name: "farm-fuzz-requests", dependencies: [farm("FarmTransfer")], path: "FarmFuzz/Requests"),
        .executableTarget(name: "farm-fuzz-headers", dependencies: [farm("FarmTransfer")], path: "FarmFuzz/Headers"),
        .executableTarget(name: "farm-fuzz-rpc", dependencies: [farm("FarmRPC"), farm("FarmJSON")], path: "FarmFuzz/RPC"),
        // Where the fuzz targets that read files write each input and what they extract.
        .target(name: "FarmFuzzScratch", path: "FarmFuzz/Scratch"),
    ],
    swiftLanguageModes: [.v6]
)
