// swift-tools-version: 6.1
// farm: a bulk download manager built as a farm of worker processes sharing a spool directory.
import Foundation
import PackageDescription

/// `pkg-config --cflags` of `packages`: the header paths of libraries farm loads itself, at run time,
/// so that their `-l` flags never reach the linker (a system-library target would add them). The
/// price of CFarmRenderLoader, whose header says why it pays.
func headerFlags(_ packages: String...) -> [String] {
    let pkgConfig = Process()
    pkgConfig.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    pkgConfig.arguments = ["pkg-config", "--cflags"] + packages
    let output = Pipe()
    pkgConfig.standardOutput = output
    guard (try? pkgConfig.run()) != nil else { return [] }
    let flags = output.fileHandleForReading.readDataToEndOfFile()
    pkgConfig.waitUntilExit()
    return String(decoding: flags, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
}

/// poppler-glib and cairo (with glib and gobject): headers only; CFarmRenderLoader loads the libraries.
let renderHeaders = headerFlags("poppler-glib", "cairo")
let renderSwiftHeaders: [SwiftSetting] = [.unsafeFlags(renderHeaders.flatMap { ["-Xcc", $0] })]

/// The git revision `farm --version` names, from the environment of `swift build`: bin/setup and bin/package
/// set FARM_REVISION; without it the binary says "unknown". Only CFarmRevision is compiled with it.
let revision = ProcessInfo.processInfo.environment["FARM_REVISION"].map { value -> [CSetting] in
    let safe = String(value.filter { $0.isLetter || $0.isNumber || "-._+".contains($0) })
    return [.define("FARM_REVISION", to: "\"\(safe)\"")]
} ?? []

/// The executables export no symbols: Swift's static runtime asks for --export-dynamic, which makes every
/// public symbol of every module a root that --gc-sections must keep (NIO's whole API, say), and adds 3 MB
/// of dynamic symbol table. Nothing looks farm's symbols up at run time (no plugin, no dlsym of its own).
let lean: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]

/// What the tests and the tools' package share: the origin and the fixtures (Tests/FarmOrigin, Tests/FarmFixtures).
let origin = Target.Dependency(stringLiteral: "FarmOrigin")
let fixtures = Target.Dependency(stringLiteral: "FarmFixtures")

let package = Package(
    name: "farm",
    products: [
        .executable(name: "farm", targets: ["farm"]),
        // farm's HTTP servers (`farm serve` and aria2's RPC, `farm demo`'s sample origin), which `farm` execs: the
        // HTTP, TLS and WebSocket stack they link stays out of the binary every worker runs.
        .executable(name: "farm-serve", targets: ["farm-serve"]),
        // For the tools' package (Sources/Tools), which builds on farm's modules and the tests' origin and
        // fixtures; it depends on this package, never the other way.
    ] + ["FarmOrigin", "FarmFixtures", "FarmJSON", "FarmSystem", "FarmSpool", "FarmRegistry", "FarmLists", "FarmStatus", "FarmControl", "FarmPages", "FarmFollower",
         "FarmTop", "FarmConvert", "FarmZip", "FarmHTTP", "FarmFsck", "FarmManifest", "FarmSync", "FarmDedup", "FarmTransfer", "FarmRPC", "FarmPieces", "FarmHooks", "FarmDesired", "FarmChaosReport", "FarmWorker"]
        .map { .library(name: $0, targets: [$0]) },
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // No default traits: `FullFoundation` would link all of Foundation (and ICU's 34 MB of data) into farm,
        // which uses FoundationEssentials only; `ConfigurationSupport` is for apps configured by swift-configuration.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // farm serve off this machine (SPEC §12): HTTP Basic from hummingbird-auth, TLS from swift-nio-ssl.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        // aria2's JSON-RPC over WebSocket at /jsonrpc (SPEC §16), with its notifications.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Hummingbird's own dependencies, declared because farm's servers import them too.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        // Metrics: recorded through swift-metrics' API, exposed in Prometheus' text format by swift-prometheus.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // SHA-256 of downloads and URLs, so a spool stores equal bytes once (SPEC §7); already in the
        // graph through Hummingbird's dependencies.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        // The origin's HTTP/1 pipeline speaks HTTPTypes (Tests/FarmOrigin).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    ],
    targets: [
        // One bare system-library target per C library; see ../shared/C-LIBRARIES.md for what each needs.
        .systemLibrary(name: "CMinizip", pkgConfig: "minizip", providers: [.apt(["libminizip-dev"])]),
        // ncurses (wide): the terminal for `farm top`; it draws only what changed and restores the terminal.
        .systemLibrary(name: "CNcurses", pkgConfig: "ncursesw", providers: [.apt(["libncurses-dev"])]),
        // libjpeg-turbo: decodes JPEGs for thumbnails, scaling in the DCT (1/2 to 1/8) for speed.
        .systemLibrary(name: "CJpeg", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        // giflib (libgif-dev): decodes a GIF's first frame. Its .pc file is not shipped everywhere, and its
        // header is in the default path: the module map links "gif" itself.
        .systemLibrary(name: "CGif", providers: [.apt(["libgif-dev"])]),
        // libwebp and its demuxer (libwebp-dev): decodes WebPs, the first frame of an animated one.
        .systemLibrary(name: "CWebp", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // What Swift cannot call directly: renameat2, syncfs, POSIX_SPAWN_SETSID, fork without exec.
        .target(name: "CFarmShims"),
        // libcurl (libcurl4-openssl-dev), loaded on its first call instead of at every process's
        // start-up, where it and its ~30 dependencies cost 4.4 ms of CPU; and typed curl_easy_setopt/getinfo.
        .target(name: "CFarmCurlLoader", dependencies: ["CFarmLoader"]),
        // What both loaders share: a library opened with dlopen on first use, from any thread.
        .target(name: "CFarmLoader"),
        // libjpeg reports errors by longjmp, which Swift cannot survive: the decode and encode loops live in C.
        .target(name: "CFarmJpeg", dependencies: ["CJpeg"]),
        // The first frame of a GIF or a WebP: giflib reads through a callback, and a first frame is a walk over
        // records; libwebp's feature probe and animation options are inline functions. So the decodes live in C.
        // CGif's module map links "gif" for Swift importers only; a C target's #include does not.
        .target(name: "CFarmFrame", dependencies: ["CGif", "CWebp"], linkerSettings: [.linkedLibrary("gif")]),
        // PNG writing for display images and thumbnails, straight onto zlib (cairo's writer has no knob
        // for its slow default level, and libpng's row handling cost as much as the compression).
        .target(name: "CFarmPng", linkerSettings: [.linkedLibrary("z")]),
        // zlib's deflateInit2 and inflateInit2 are macros, which Swift does not import: WARC's gzip members
        // (one per record, written and checked member by member) go through this shim.
        .target(name: "CFarmGzip", linkerSettings: [.linkedLibrary("z")]),
        // poppler-glib and cairo (libpoppler-glib-dev), loaded on their first call instead of at every
        // process's start-up, where they and their ~45 dependencies cost 5.7 ms of CPU.
        .target(name: "CFarmRenderLoader", dependencies: ["CFarmLoader"], cSettings: [.unsafeFlags(renderHeaders)]),
        // ncurses is mostly macros, and a crashing view must restore the terminal from a signal handler.
        .target(name: "CFarmTerminal", dependencies: ["CNcurses"]),
        // The git revision for `farm --version`, given to this one file by the build (see `revision`).
        .target(name: "CFarmRevision", cSettings: revision),

        // The one JSON codec: the spool's records, the status, users' manifests (positions in its errors).
        .target(name: "FarmJSON"),
        // Every raw system call (files, descriptors, clocks, processes, inotify) behind typed functions that
        // throw Errno, and one of each helper: the clock, the directory lister, write-temp-then-rename, SplitMix64.
        .target(name: "FarmSystem", dependencies: [
            "CFarmShims",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The spool's records, below it: a job's name, its record (job file and resource table line), its progress
        // sidecar and outcome, a list's files to publish. Formats only: FarmSpool names where they are, and
        // re-exports them.
        .target(name: "FarmRecords", dependencies: [
            "FarmJSON", "FarmSystem", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The spool's core: its layout, the moves of a job and the leased queue (enqueue, claim, lease,
        // complete, quarantine, recovery, durability, holds).
        .target(name: "FarmSpool", dependencies: [
            "FarmRecords", "FarmJSON", "FarmSystem", .product(name: "SystemPackage", package: "swift-system"),
        ], exclude: ["PROTOCOL.md"]),
        // The registry of processes (procs/, each entry flocked by its live process), the serving watcher's
        // lock, and the release of the claims of processes the registry says are gone.
        .target(name: "FarmRegistry", dependencies: [
            "FarmSpool", "FarmSystem", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // What the user asked the farm to be (control/): the desired state, each host's workers and
        // bandwidth cap, the disk room kept free.
        .target(name: "FarmDesired", dependencies: ["FarmRegistry", "FarmSpool", "FarmJSON", "FarmSystem"]),
        // Download once (SPEC §7): blobs, URL records and URL partials on top of the core.
        .target(name: "FarmDedup", dependencies: [
            "FarmSpool", "FarmJSON", "FarmSystem", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Hooks (SPEC §15): programs run after a resource is done or failed, at least once across kills.
        .target(name: "FarmHooks", dependencies: [
            "FarmSpool", "FarmJSON", "FarmSystem", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Pieces and mirrors (SPEC §14): the board of a resource fetched over several connections.
        .target(name: "FarmPieces", dependencies: [
            "FarmSpool", "FarmJSON", "FarmSystem", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Lists as users change them: edits, order, reload, retry, page logs, sync's replacement.
        .target(name: "FarmLists", dependencies: [
            "FarmRegistry",
            "FarmMirror",
            "FarmPieces",
            "FarmSpool", "FarmDedup", "FarmJSON", "FarmSystem", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Per-host manners (SPEC §10): transfer slots, token buckets, holds and parked jobs.
        .target(name: "FarmHosts", dependencies: [
            "FarmDesired",
            "FarmSpool", "FarmSystem", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // `farm fsck`: every invariant of the spool and its concerns, checked and repaired.
        .target(name: "FarmFsck", dependencies: [
            "FarmHosts", "FarmRegistry",
            "FarmDesired",
            "FarmHooks",
            "FarmPieces",
            "FarmSpool", "FarmDedup", "FarmLists", "FarmJSON", "FarmSystem",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),

        // Downloads over one reused libcurl handle: ranges, limits, progress, transient vs permanent errors;
        // the SHA-256 of a body hashed as it is written.
        .target(name: "FarmTransfer", dependencies: [
            "CFarmCurlLoader", "FarmJSON", "FarmMirror", "FarmSystem", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // WARC/1.1 files (SPEC §18): request and response records with their SHA-1 digests, each a gzip member
        // of its own, appended durably by one writer per process, rotated by size; torn tails recovered.
        .target(name: "FarmWARC", dependencies: [
            "CFarmGzip", "FarmSystem", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Paged JSON API sources (SPEC §7): pages read by JSON Pointers and fetched (the follower process that
        // fetches them while the farm downloads is FarmFollower).
        .target(name: "FarmPages", dependencies: [
            "FarmSpool", "FarmLists", "FarmJSON", "FarmSystem", "FarmTransfer",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The coordinator (`farm add`): a manifest in, one job per resource enqueued atomically.
        .target(name: "FarmCoordinator", dependencies: [
            "FarmSpool", "FarmLists", "FarmManifest", "FarmMirror", "FarmPages", "FarmSystem", "FarmTransfer",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // `farm sync` (SPEC §7): a list brought to its source again, its done resources revalidated by
        // conditional requests, in steps that are each atomic.
        .target(name: "FarmSync", dependencies: [
            "FarmDesired",
            "FarmSpool", "FarmDedup", "FarmLists", "FarmCoordinator", "FarmPages", "FarmManifest", "FarmTransfer", "FarmConvert", "FarmJSON",
            "FarmSystem", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The user's verbs (scale, pause, resume, stop, reset, reload, add…), one check and one message each,
        // called by every front end: the CLI, `farm top` and `farm serve`.
        .target(name: "FarmControl", dependencies: [
            "FarmRegistry",
            "FarmDesired",
            "FarmHooks",
            "FarmSpool", "FarmLists", "FarmHosts", "FarmFsck", "FarmStatus", "FarmProcess", "FarmCoordinator", "FarmManifest", "FarmJSON", "FarmSystem",
            "FarmTransfer",
        ]),
        // Bytes to images: kinds by magic number, PDF page 1 rendered, GIF and WebP first frames, ZIPs unpacked
        // safely.
        .target(name: "FarmConvert", dependencies: [
            "CFarmRenderLoader", "CFarmJpeg", "CFarmPng", "CFarmFrame", "FarmSystem", "FarmZip",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: renderSwiftHeaders),
        // The worker process (`farm work`): claim, download, convert, complete; lease kept alive meanwhile.
        .target(name: "FarmWorker", dependencies: [
            "FarmRegistry",
            "FarmDesired",
            "FarmHooks",
            "FarmPieces",
            "FarmSpool", "FarmDedup", "FarmLists", "FarmHosts", "FarmSystem", "FarmTransfer", "FarmConvert", "FarmMetrics",
            "FarmProcess", "FarmJSON", "FarmMirror", "FarmWARC",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // How every reader learns the spool changed, and how a loop waits for a folder of it to: inotify, or
        // looks where the kernel cannot see other hosts' changes.
        .target(name: "FarmChangeFeed", dependencies: [
            "FarmDesired",
            "FarmSpool", "FarmSystem", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The status of the farm (SPEC §4): built from the spool, kept current by the watcher through inotify.
        .target(name: "FarmStatus", dependencies: [
            "FarmRegistry",
            "FarmDesired",
            "FarmHooks",
            "FarmSpool", "FarmLists", "FarmSystem", "FarmJSON",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The watcher process (`farm watch`): the status kept current from inotify or polling, one serving
        // the spool and the others standing by.
        .target(name: "FarmWatcher", dependencies: ["FarmRegistry", "FarmDesired", "FarmChangeFeed", "FarmStatus", "FarmSpool", "FarmLists", "FarmSystem", "FarmProcess"]),
        // The follower process (`farm follow`): the pages of paged lists fetched and added while the farm runs.
        .target(name: "FarmFollower", dependencies: [
            "FarmDesired",
            "FarmPages", "FarmSpool", "FarmLists", "FarmSystem", "FarmProcess", "FarmTransfer", "FarmConvert",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The supervisor (`farm start`): keeps the desired workers and one watcher alive, adopts, respawns.
        .target(name: "FarmSupervisor", dependencies: [
            "FarmRegistry",
            "FarmDesired",
            "FarmSpool", "FarmLists", "FarmSystem", "FarmMetrics", "FarmProcess", "FarmTransfer",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // A process's life, whatever its role: its lock, its entry in the registry, its stop signals, the
        // hand-over to a new supervisor, copies of itself, `farm start`'s launch of the supervisor from the
        // roles' table the executable passes down, and `farm stop`'s end of them all.
        .target(name: "FarmProcess", dependencies: [
            "FarmRegistry",
            "FarmDesired",
            "FarmSpool", "FarmDedup", "FarmSystem", "FarmMetrics", "FarmWARC",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Metrics (SPEC §10): each process's counters kept in memory and in its own file under metrics/, and
        // summed; FarmMetricsPage adds the status's gauges for `GET /metrics` and `farm metrics`.
        .target(name: "FarmMetrics", dependencies: [
            "FarmRegistry",
            "FarmSpool", "FarmSystem", "FarmJSON",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The metrics in Prometheus' text format, as `GET /metrics` answers and `farm metrics` prints; swift-prometheus
        // needs no NIO, so `farm` links it.
        .target(name: "FarmMetricsPage", dependencies: [
            "FarmSpool", "FarmMetrics", "FarmStatus", .product(name: "Prometheus", package: "swift-prometheus"),
        ]),
        // `farm top`: the app's first two screens in a terminal, live.
        .target(name: "FarmTop", dependencies: [
            "FarmDesired",
            "CNcurses", "CFarmTerminal", "FarmSpool", "FarmChangeFeed", "FarmStatus", "FarmControl", "FarmSystem",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // `farm serve`: the app's three screens in a browser, live over server-sent events, same-origin only.
        .target(name: "FarmServe", dependencies: [
            "FarmDesired",
            "FarmSpool", "FarmChangeFeed", "FarmLists", "FarmStatus", "FarmControl", "FarmSystem", "FarmJSON", "FarmMetricsPage", "FarmRPC",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], resources: [.embedInCode("Assets")]),
        // aria2's JSON-RPC 2.0 (SPEC §16): requests parsed, answered through Control's verbs, farm's resources shown
        // as aria2's downloads (GIDs, status objects, numbers as strings). No transport: FarmServe routes to it.
        .target(name: "FarmRPC", dependencies: [
            "FarmDesired",
            "FarmJSON", "FarmControl", "FarmStatus", "FarmSpool", "FarmLists", "FarmTransfer", "FarmSystem",
        ]),
        // A Hummingbird server run from synchronous code: started once it listens, stopped once it has ended.
        .target(name: "FarmHTTP", dependencies: [
            "FarmSystem", .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // `farm demo`: the sample set (pictures drawn on the spot, PDFs from Samples/), served from 127.0.0.1
        // by its own small origin.
        .target(name: "FarmDemo", dependencies: [
            "CFarmRenderLoader", "FarmConvert", "FarmHTTP", "FarmJSON", "FarmSystem", "FarmZip",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
        ], resources: [.embedInCode("Samples")], swiftSettings: renderSwiftHeaders),
        // Manifests in: a zip of JSON lists or one JSON list, in any of the three shapes of SPEC §1.
        .target(name: "FarmManifest", dependencies: [
            "FarmJSON", "FarmSystem", "FarmZip", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Mirror and archive (SPEC §18): the crawl's pure rules, URLs resolved and normalized (RFC 3986), links of
        // HTML and CSS as wget finds them, robots.txt (RFC 9309), the scope of a recursive list, wget's file names.
        .target(name: "FarmMirror"),
        // Zip archives read safely (names, symlinks, bombs, CRC), and written plain (the demo's), over minizip.
        .target(name: "FarmZip", dependencies: [
            "CMinizip", "FarmSystem", .product(name: "SystemPackage", package: "swift-system"),
        ]),

        // What both executables parse: --spool and its default, --poll, and `farm serve`'s options (farm parses and
        // checks them, for its help, man pages and completions; farm-serve parses the same arguments again).
        .target(name: "FarmCommandLine", dependencies: [
            "FarmSpool", "FarmSystem", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The `farm` command: one subcommand a file, each parsing its options and calling the modules above.
        // No HTTP server: `farm serve` and `farm demo`'s origin run farm-serve.
        .executableTarget(name: "farm", dependencies: [
            "FarmRegistry",
            "FarmDesired", "FarmLists", "FarmMirror",
            "FarmHooks",
            "FarmPieces",
            "CFarmRevision",
            "FarmJSON",
            "FarmSpool",
            "FarmChangeFeed",
            "FarmControl",
            "FarmCoordinator",
            "FarmWorker",
            "FarmStatus",
            "FarmSupervisor",
            "FarmProcess",
            "FarmTop",
            "FarmManifest",
            "FarmCommandLine",
            "FarmMetricsPage",
            "FarmFollower",
            "FarmWatcher",
            "FarmSync",
            "FarmTransfer",
            "FarmSystem",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], linkerSettings: lean),
        // `farm-serve`: `farm serve` (the web app and aria2's RPC) and `farm demo`'s sample origin, exec'd by farm.
        .executableTarget(name: "farm-serve", dependencies: [
            "FarmCommandLine", "FarmServe", "FarmDemo", "FarmSpool", "FarmSystem",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], linkerSettings: lean),

        // A real HTTP origin on 127.0.0.1 with faults on demand, for the tests, the chaos runner and the benchmark.
        .target(name: "FarmOrigin", dependencies: [
            "FarmHTTP", "FarmSystem", "FarmJSON",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        ] + ["NIOCore", "NIOHTTP1", "NIOPosix"].map { .product(name: $0, package: "swift-nio") }, path: "Tests/FarmOrigin"),
        // Fixtures: PDFs, stored PNGs and hostile zip entries made byte by byte, PNGs decoded to check pixels.
        .target(name: "FarmFixtures", dependencies: ["FarmConvert", "FarmZip"], path: "Tests/FarmFixtures"),
        // The figures of a chaos run: written by farm-chaos (Sources/Tools), read by EndToEndTests.
        .target(name: "FarmChaosReport", path: "Tests/FarmChaosReport"),
        // A child for FarmWARCTests' kill test: appends records in a loop until it is killed.
        .executableTarget(name: "farm-warc-writer", dependencies: ["FarmWARC", "FarmSystem"], path: "Tests/FarmWARCWriter"),
        // What the tests share: child processes, a running farm, spool and image fixtures (GIFs and WebPs
        // encoded by giflib and libwebp).
        .target(name: "FarmTestSupport", dependencies: ["FarmRegistry", "CGif", "CWebp", "FarmSpool", "FarmSystem", "FarmDedup", "FarmLists", "FarmJSON", "FarmConvert", fixtures, origin],
                path: "Tests/FarmTestSupport"),
        // One test target per module it tests, named after it and importing it; EndToEndTests runs the binary.
        .testTarget(name: "FarmJSONTests", dependencies: ["FarmJSON"]),
        .testTarget(name: "FarmRecordsTests", dependencies: ["FarmRecords", "FarmJSON", "FarmSystem", "FarmTestSupport"]),
        .testTarget(name: "FarmSpoolTests", dependencies: [
            "FarmRegistry",
            "FarmDesired",
            "FarmHooks",
            "FarmPieces",
            "FarmSpool", "FarmLists", "FarmFsck", "FarmDedup", "FarmJSON", "FarmSystem", "FarmTestSupport",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "FarmSystemTests", dependencies: [
            "FarmSystem", "FarmTestSupport", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "FarmChangeFeedTests", dependencies: ["FarmChangeFeed", "FarmSpool", "FarmSystem", "FarmTestSupport"]),
        .testTarget(name: "FarmFsckTests", dependencies: ["FarmFsck", "FarmSpool", "FarmJSON", "FarmTestSupport"]),
        .testTarget(name: "FarmHostsTests", dependencies: [
            "FarmDesired",
            "FarmHosts", "FarmSpool", "FarmSystem", "FarmControl", "FarmJSON", "FarmStatus", origin, "FarmTestSupport",
        ]),
        .testTarget(name: "FarmControlTests", dependencies: [
            "FarmRegistry",
            "FarmHooks",
            "FarmControl", "FarmSpool", "FarmJSON", "FarmStatus", "FarmWARC", origin, "FarmTestSupport",
        ]),
        .testTarget(name: "FarmManifestTests", dependencies: [
            "FarmManifest", "FarmJSON", "FarmZip", fixtures, "FarmTestSupport",
        ]),
        .testTarget(name: "FarmTransferTests", dependencies: [
            "FarmTransfer", "FarmSystem", origin, "FarmTestSupport", .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "FarmConvertTests", dependencies: [
            "FarmConvert", "CFarmPng", "FarmSpool", fixtures, origin, "FarmJSON", "FarmTestSupport",
        ]),
        .testTarget(name: "FarmWorkerTests", dependencies: [
            "FarmWorker", "FarmSpool", "FarmStatus", "FarmLists", "FarmTransfer", "FarmTestSupport", "FarmWARC",
        ]),
        .testTarget(name: "FarmStatusTests", dependencies: [
            "FarmDesired",
            "FarmStatus", "FarmManifest", "FarmSpool", "FarmLists", "FarmJSON", "FarmSystem", "FarmTestSupport",
        ]),
        .testTarget(name: "FarmWatcherTests", dependencies: [
            "FarmRegistry",
            "FarmDesired",
            "FarmWatcher", "FarmStatus", "FarmSpool", "FarmJSON", "FarmTestSupport",
        ]),
        // A process's life: copies of the supervisor in ps, the supervisor kept alive with none running.
        // `farm demo` to the end, with exactly the errors its samples plan.
        .testTarget(name: "FarmSupervisorTests", dependencies: [
            "FarmRegistry",
            "FarmDesired",
            "FarmHooks",
            "FarmSupervisor",
            "FarmSpool", "FarmStatus", "FarmSystem", origin, "FarmJSON", "FarmTestSupport", "FarmZip",
        ]),
        .testTarget(name: "FarmTopTests", dependencies: [
            "FarmRegistry",
            "FarmDesired",
            "FarmTop", "FarmSpool", "FarmSystem", "FarmLists", "FarmStatus", "CFarmShims", origin, "FarmTestSupport",
        ]),
        // drive_aria2p.py: the same script drives farm serve and a real aria2c (SPEC §16).
        .testTarget(name: "FarmRPCTests", dependencies: [
            "FarmRPC", "FarmServe", "FarmSpool", "FarmJSON", "FarmStatus", "FarmControl", origin, "FarmTestSupport",
        ], exclude: ["drive_aria2p.py", "measure_rpc.sh"]),
        .testTarget(name: "FarmMetricsTests", dependencies: [
            "FarmRegistry",
            "FarmMetrics", "FarmSpool", "FarmSystem", "FarmJSON", origin, "FarmTestSupport",
            .product(name: "CoreMetrics", package: "swift-metrics"),
        ]),
        // The crawl's rules alone, and a walk over a generated site by them against the real GNU wget's.
        .testTarget(name: "FarmMirrorTests", dependencies: ["FarmMirror", origin, "FarmTestSupport"]),
        // WARC records byte by byte, warcio's check and index of what was written, rotation, kills and torn tails.
        .testTarget(name: "FarmWARCTests", dependencies: [
            "FarmWARC", "FarmTestSupport",
        ]),
        .testTarget(name: "FarmZipTests", dependencies: ["FarmZip", fixtures, "FarmTestSupport"]),
        .testTarget(name: "FarmOriginTests", dependencies: [origin, "FarmTestSupport"]),
        .testTarget(name: "FarmSyncTests", dependencies: [
            "FarmSync", "FarmSpool", "FarmLists", "FarmJSON", origin, "FarmStatus", "FarmTestSupport",
        ]),
        .testTarget(name: "FarmListsTests", dependencies: [
            "FarmLists", "FarmSpool", "FarmDedup", "FarmFsck", "FarmJSON", "FarmSystem", "FarmTestSupport",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "FarmDedupTests", dependencies: [
            "FarmSpool", "FarmDedup", "FarmFsck", "FarmJSON", "FarmSystem", origin, fixtures, "FarmZip", "FarmStatus",
            "FarmTestSupport", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "FarmPagesTests", dependencies: ["FarmPages", "FarmSpool", "FarmLists", "FarmJSON"]),
        .testTarget(name: "FarmHTTPTests", dependencies: [
            "FarmHTTP", origin, "FarmTestSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // The `farm` binary driven as a user drives it, a folder per concern: CommandLine, Add (the coordinator),
        // PagedSources (`farm follow` against a paged origin), Processes (the supervisor's copies, leaderless
        // roles), WebScreens (a real browser; Screenshots/ is what it saw during one real run, kept for the
        // README), Demo, Chaos (bin/chaos's short form), DebianPackage (bin/package's .deb, installed and run:
        // contents, lintian, man pages, completions, farm@.service's command lines).
        .testTarget(name: "EndToEndTests", dependencies: [
            "FarmRegistry",
            "FarmDesired",
            "FarmSpool", "FarmLists", "FarmZip", "FarmJSON", "FarmStatus", origin, fixtures, "FarmTestSupport", "FarmChaosReport",
            "FarmConvert", "FarmDedup", "FarmFsck", "FarmHooks", "FarmHosts", "FarmPieces", "FarmSystem",
            .product(name: "SystemPackage", package: "swift-system"),
            // The SHA-256 of what the origin served, against the payloads warcio reads back (Mirror/WARCListTests).
            .product(name: "Crypto", package: "swift-crypto"),
        ], exclude: ["WebScreens/Screenshots"]),
    ],
    swiftLanguageModes: [.v6]
)
