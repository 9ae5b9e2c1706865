import ArgumentParser
import FarmJSON
import FarmOrigin
import FarmRegistry
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `control --runs N`: how fast the running farm reacts, on a real farm (the `farm` next to this
/// binary) downloading throttled resources from an origin on 127.0.0.1:
/// - reclaim after a seen death (`kill -9` of a busy worker: the supervisor hands its job back),
/// - reclaim after an unseen one (SIGSTOP: the worker looks alive, only its lease can expire),
/// - how long `scale`, `pause` and `resume` take to show in `farm ps` and in the bytes on disk.
struct ControlBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "control",
                                                    abstract: "Reclaim, scale, pause and resume latencies.")

    @OptionGroup var workspace: Workspace
    @Option(help: "Samples of each measurement.") var runs = 10
    @Option(help: "Lease in seconds (the unseen death costs about this).") var lease = 3.0

    func run() throws {
        let origin = Origin()
        try origin.start()
        defer { origin.stop() }
        let base = try workspace.make("control")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let spool = try Spool(root: base + "/spool")
        let farm = FarmCommand(spool: spool)
        defer { farm.stopAndKill() }

        // Far more work than the run needs, each resource slow, so workers are always mid-transfer.
        let count = 120
        for n in 0..<count {
            // A PNG's whole signature: a worker fails bytes of no kind it keeps at their first bytes.
            origin.serve(path: "/r/\(n).png", bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
                + [UInt8](repeating: UInt8(n & 0xFF), count: 1_000_000))
            origin.inject(.throttle(bytesPerSecond: 50_000), at: "/r/\(n).png")
        }
        let manifest = base + "/manifest.json"
        let urls = (0..<count).map { origin.url(for: "/r/\($0).png") }
        try Data(JSON.encode(urls)).write(to: URL(fileURLWithPath: manifest))
        try farm.run(["add", manifest])
        try farm.run(["start", "--workers", "4", "--lease", String(lease)])

        var seen: [Double] = [], unseen: [Double] = [], scale: [Double] = [], pause: [Double] = [], resume: [Double] = []
        for _ in 0..<runs {
            seen.append(try reclaim(spool, signal: SIGKILL))
            unseen.append(try reclaim(spool, signal: SIGSTOP))
            for target in [6, 4] {
                let start = Clock.monotonic()
                try farm.run(["scale", String(target)], quiet: true)
                waitFor { spool.registry.processes().filter { $0.role == .worker }.count == target }
                scale.append(Clock.monotonic() - start)
            }
            waitFor { spool.activeJobs().count == 4 }
            var start = Clock.monotonic()
            try farm.run(["pause"])
            waitFor { !Self.growing(spool) }
            pause.append(Clock.monotonic() - start - Self.window)
            start = Clock.monotonic()
            try farm.run(["resume"])
            waitFor { Self.growing(spool) }
            resume.append(Clock.monotonic() - start - Self.window)
        }
        print("reclaim after a seen death (kill -9):      " + Stats(seen).text)
        print("reclaim after an unseen death (lease \(lease) s): " + Stats(unseen).text)
        print("scale 4→6 and 6→4, `farm scale` to `ps`:   " + Stats(scale).text)
        print("pause, command to bytes still:              " + Stats(pause).text)
        print("resume, command to bytes moving:            " + Stats(resume).text)
        print("(each includes starting the `farm` command, about 10–20 ms)")
    }

    /// Seconds from `signal` to a busy worker until its job has left active/ under that owner.
    private func reclaim(_ spool: Spool, signal: Int32) throws -> Double {
        var victim: ActiveJob?
        waitFor {
            victim = spool.activeJobs().first { $0.age < 1 }
            return victim != nil
        }
        guard let victim else { throw ValidationError("no busy worker to kill") }
        let start = Clock.monotonic()
        kill(victim.owner.pid, signal)
        waitFor(timeout: lease * 4) { !spool.activeJobs().contains { $0.owner.raw == victim.owner.raw } }
        let elapsed = Clock.monotonic() - start
        if signal == SIGSTOP { kill(victim.owner.pid, SIGKILL) }  // it lost its lease; end it for good
        return elapsed
    }

    static let window = 0.2

    /// Whether any partial download grows within `window` seconds.
    private static func growing(_ spool: Spool) -> Bool {
        let before = totalPartialBytes(spool)
        Thread.sleep(forTimeInterval: window)
        return totalPartialBytes(spool) != before
    }

    private static func totalPartialBytes(_ spool: Spool) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: spool.partial)) ?? []).reduce(0) { sum, name in
            var st = stat()
            return sum + (stat(spool.partial + "/" + name, &st) == 0 ? Int(st.st_size) : 0)
        }
    }

    /// Looks every 2 ms: the latencies measured are tens of milliseconds.
    private func waitFor(timeout: Double = 30, _ condition: () -> Bool) {
        Clock.poll(every: 0.002, for: timeout, until: condition)
    }
}

/// Runs the `farm` next to this binary on one spool, and ends the farm it started.
struct FarmCommand {
    let spool: Spool
    var executable: String { Spawned.sibling("farm") }

    func run(_ arguments: [String], quiet: Bool = false) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + ["--spool", spool.root]
        if quiet { process.standardOutput = FileHandle.nullDevice }
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ValidationError("farm \(arguments[0]) failed") }
    }

    /// `farm stop`, then SIGKILL by pid whatever is still registered.
    func stopAndKill() {
        try? run(["stop"], quiet: true)
        for process in spool.registry.processes() { kill(process.pid, SIGKILL) }
    }
}


/// p50 and worst of a sample, in milliseconds.
struct Stats {
    let values: [Double]
    init(_ values: [Double]) { self.values = values.sorted() }
    var text: String {
        guard !values.isEmpty else { return "-" }
        return String(format: "p50 %.0f ms, worst %.0f ms (n=%d)", values.median * 1000,
                      values.last! * 1000, values.count)
    }
}
