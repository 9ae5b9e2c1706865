import ArgumentParser
import FarmRegistry
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `roles --jobs 100000,1000000`: for each size, the time and peak RSS of `farm add` on a manifest of
/// that many URLs, then the peak RSS of every role of a farm started on that queue (6 workers,
/// conversions off, one small file served by nginx for every URL) after `--seconds` of work, and the
/// time and peak RSS of `farm fsck` on that spool once the farm is stopped.
struct RolesBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roles",
        abstract: "Time `farm add` at large sizes and measure each role's peak RSS on a large queue.")

    @OptionGroup var workspace: Workspace
    @Option(help: "Manifest sizes, comma-separated.") var jobs = "100000,1000000"
    @Option(help: "Seconds the farm runs before its processes are measured.") var seconds = 15.0
    @Option(help: "Workers.") var workers = 6

    func run() throws {
        let base = try workspace.make("roles")
        try FileManager.default.createDirectory(atPath: base + "/www", withIntermediateDirectories: true)
        chmod(base, 0o755)
        chmod(base + "/www", 0o755)
        defer { try? FileManager.default.removeItem(atPath: base) }
        var random = SplitMix64(seed: 0x5EED_0003)
        try Data(CorpusFormats.png(width: 48, height: 48, size: 16384, random: &random))
            .write(to: URL(fileURLWithPath: base + "/www/one.png"))
        // Every /r/<n>.png is the same small file: a million URLs with no million files behind them.
        let nginx = try Nginx(root: base + "/www", directory: base + "/nginx",
                              extra: "location /r/ { rewrite ^ /one.png break; }")
        defer { nginx.stop() }
        let farm = Spawned.sibling("farm")
        try printAtRest(farm, base: base)
        print("size       add s    add RSS   supervisor  worker (largest)  watcher   jobs done  fsck s  fsck RSS"
            + "   (\(workspace.dir))")
        for size in jobs.split(separator: ",").compactMap({ Int($0) }) {
            let manifest = base + "/roles-\(size).json"
            try (Data("[".utf8) + Data((0..<size).map { "\"\(nginx.url("r/\($0).png"))\"" }.joined(separator: ",").utf8)
                + Data("]".utf8)).write(to: URL(fileURLWithPath: manifest))
            let spool = base + "/spool-\(size)"
            let log = base + "/farm.log"
            let add = try Spawned.run(farm, ["add", manifest, "--spool", spool], log: log)
            unlink(manifest)
            defer { _ = try? Spawned.run(farm, ["stop", "--spool", spool], log: log, check: false) }
            try Spawned.run(farm, ["start", "--workers", String(workers), "--no-convert", "--spool", spool], log: log)
            Thread.sleep(forTimeInterval: seconds)
            let opened = try Spool(root: spool, create: false)
            let running = opened.registry.processes()
            func peak(_ role: Role) -> Int { running.filter { $0.role == role }.map { Spawned.peakRSS(of: $0.pid) }.max() ?? 0 }
            let done = (try? FileManager.default.subpathsOfDirectory(atPath: opened.done).count) ?? 0
            let peaks = [peak(.supervisor), peak(.worker), peak(.watcher)]
            _ = try? Spawned.run(farm, ["stop", "--spool", spool], log: log, check: false)
            // Exit 1 would be a finding: the spool of a stopped farm must be clean.
            let fsck = try Spawned.run(farm, ["fsck", "--spool", spool], log: log)
            print(String(size).padded(11) + String(format: "%.1f", add.seconds).padded(9)
                + Self.mb(add.peakRSS).padded(10) + Self.mb(peaks[0]).padded(12) + Self.mb(peaks[1]).padded(18)
                + Self.mb(peaks[2]).padded(10) + String(done).padded(11) + String(format: "%.2f", fsck.seconds).padded(8)
                + Self.mb(fsck.peakRSS))
            try? FileManager.default.removeItem(atPath: spool)
        }
    }

    static func mb(_ bytes: Int) -> String { String(format: "%.0f MB", Double(bytes) / 1e6) }

    /// Issue 66's figures: `farm` stripped, as the .deb ships it, and each role's memory at rest (`farm start
    /// --workers 1` on an empty spool, after `restSeconds`), resident (VmRSS, every page it maps, shared ones
    /// included) and proportional (Pss, shared pages divided among their sharers), in MiB as `ps` shows them.
    private func printAtRest(_ farm: String, base: String) throws {
        let stripped = base + "/farm-stripped"
        _ = try Spawned.run("/usr/bin/strip", ["-o", stripped, farm], log: base + "/strip.log")
        let size = (try? FileManager.default.attributesOfItem(atPath: stripped)[.size] as? Int) ?? 0
        unlink(stripped)
        let spool = base + "/spool-rest"
        let log = base + "/farm.log"
        try Spawned.run(farm, ["start", "--workers", "1", "--spool", spool], log: log)
        defer { _ = try? Spawned.run(farm, ["stop", "--spool", spool], log: log, check: false) }
        Thread.sleep(forTimeInterval: Self.restSeconds)
        let running = try Spool(root: spool, create: false).registry.processes()
        func mib(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1048576) }
        print(String(format: "farm stripped: %.2f MB", Double(size) / 1e6))
        print("at rest (MiB)  VmRSS   Pss")
        for role in [Role.supervisor, .worker, .watcher] {
            guard let process = running.first(where: { $0.role == role }) else { continue }
            let memory = Spawned.memory(of: process.pid)
            print("\(role)".padded(15) + mib(memory.rss).padded(8) + mib(memory.pss))
        }
    }

    /// How long a farm with nothing to do runs before its memory is read: its start-up is long over.
    static let restSeconds = 3.0
}
