import ArgumentParser
import FarmOrigin
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `farm-chaos` (run by `bin/chaos`): proves "kill anything, lose nothing" under load. It serves a
/// corpus of throttled JPG, PNG, PDF and ZIP resources from an in-process origin, runs a real farm on
/// it, SIGKILLs its processes at random for `--seconds` while scaling and pausing it, floods the
/// watcher's inotify queue, lets the farm finish, then checks every resource and prints the figures.
/// Exits 1 on any loss, duplicate, corrupt or stray output, anything left behind, or a finding of
/// `farm fsck` on the final spool.
@main
struct Chaos: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farm-chaos",
        abstract: "Kill farm processes at random under load, then prove that nothing was lost or doubled.")

    @Option(help: "How long the chaos lasts, in seconds.")
    var seconds: Double = 240
    @Option(help: "SIGKILLs per second, on average.")
    var killsPerSecond: Double = 5
    @Option(help: "Resources in the base manifest (extra lists are added during the run).")
    var resources: Int = 520
    @Option(help: "Workers at the start; the chaos scales between 2 and 8.")
    var workers: Int = 6
    @Option(help: "The lease, in seconds.")
    var lease: Double = 3
    @Option(help: "Inotify overflow rounds after the chaos.")
    var overflows: Int = 3
    @Option(help: "Seconds allowed for the farm to finish once the chaos is over.")
    var drainTimeout: Double = 600
    @Option(help: "The farm executable (default: `farm` next to this one).")
    var farm: String?
    @Option(help: "Where to put the spool and manifests (default: a new temporary directory, removed when all is well).")
    var dir: String?
    @Option(help: "Seed of the corpus and of the chaos (default: random).")
    var seed: UInt64?
    @Option(help: "Write the figures as JSON to this file.")
    var report: String?
    @Flag(help: "Also exit 1 when a timing or traffic goal is missed.")
    var strict = false

    func validate() throws {
        guard seconds > 0, killsPerSecond > 0, resources >= 20, (2...8).contains(workers), lease >= 1 else {
            throw ValidationError("need --seconds > 0, --kills-per-second > 0, --resources ≥ 20, --workers 2…8, --lease ≥ 1")
        }
    }

    func run() throws {
        for stop in [SIGINT, SIGTERM] { signal(stop) { _ in interrupted.store(true, ordering: .relaxed) } }
        let seed = self.seed ?? UInt64.random(in: 0...UInt64(UInt32.max))
        let executable = farm ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("farm").path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ChaosError("no farm executable at \(executable); build it or pass --farm")
        }
        let work = try dir ?? makeTemporaryDirectory()
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let spool = try Spool(root: work + "/spool")
        let farm = FarmCommand(executable: executable, spool: spool.root)
        let origin = Origin()
        try origin.start()
        defer { origin.stop() }
        let observer = Observer(spool: spool)
        var ended = false
        defer { if !ended { end(farm, spool, observer) } }

        // Transfers long enough to be killed half-way, yet a corpus the workers get through in the time.
        let smallSeconds = min(3, max(0.2, 2.6 * seconds / Double(resources)))
        let corpus = Corpus(origin: origin, directory: work, seed: seed, smallSeconds: smallSeconds)
        let base = try corpus.makeBase(count: resources)
        print("farm-chaos: \(corpus.resources.count) resources (\(corpus.bytes / 1_000_000) MB), seed \(seed), "
            + "spool \(spool.root)")
        try farm.must(["add", base])
        try farm.must(["start", "--workers", String(workers), "--lease", String(lease)])
        observer.start()

        let mayhem = Mayhem(farm: farm, spool: spool, corpus: corpus, observer: observer,
                            killsPerSecond: killsPerSecond, workers: 2...8, seed: seed ^ 0x5EED)
        try mayhem.run(seconds: seconds)
        print("farm-chaos: chaos over after \(mayhem.tally.total) kills; overflow rounds, then the farm finishes")

        // Whatever the chaos left, a farm runs again with the initial settings (start is a no-op if one runs).
        try farm.must(["start", "--workers", String(workers), "--lease", String(lease)])
        try farm.must(["scale", String(workers)])
        var rounds: [Overflow.Round] = []
        for number in 0..<overflows where !interrupted.load(ordering: .relaxed) {
            rounds.append(try Overflow(farm: farm, spool: spool, corpus: corpus).round(number + 1))
        }
        // Adds killed half-way are run again: the lists must end up exactly the union of the manifests.
        for manifest in corpus.manifests { try farm.must(["add", manifest]) }
        let waited = try farm.run(["wait", "--timeout", String(Int(drainTimeout))], timeout: drainTimeout + 60)
        let reclaims = observer.stop()
        ended = true
        end(farm, spool, observer)

        let verdict = Verdict.check(spool: spool, corpus: corpus, farm: farm)
        let figures = Report(
            seconds: seconds, killsPerSecond: killsPerSecond, seed: seed, lease: lease,
            resources: verdict.resources, corpusBytes: corpus.bytes, bytesServed: origin.bytesServed,
            kills: mayhem.tally.kills, adds: mayhem.tally.adds, scales: mayhem.tally.scales, pauses: mayhem.tally.pauses,
            done: verdict.done, failed: verdict.failed, lost: verdict.lost.count, duplicated: verdict.duplicated.count,
            corrupt: verdict.corrupt.count, strays: verdict.strays.count, leftovers: verdict.leftovers.count,
            statusErrors: verdict.statusErrors.count, fsck: verdict.fsck.count,
            commandErrors: mayhem.tally.commandErrors.count,
            farmDown: mayhem.tally.farmDown,
            seenReclaims: reclaims.seen, unseenReclaims: reclaims.unseen, pendingReclaims: reclaims.pending,
            overflowRecoveries: rounds.map(\.recovery), overflowsTriggered: rounds.filter(\.overflowed).count,
            finished: waited.status == 0 || waited.status == 1)
        print(figures.table())
        for (title, items) in [("lost", verdict.lost), ("duplicated", verdict.duplicated), ("corrupt", verdict.corrupt),
                               ("stray", verdict.strays), ("left behind", verdict.leftovers),
                               ("status", verdict.statusErrors), ("fsck", verdict.fsck),
                               ("command errors", mayhem.tally.commandErrors)]
        where !items.isEmpty {
            print("\(title):")
            for item in items.prefix(20) { print("  " + item) }
            if items.count > 20 { print("  … and \(items.count - 20) more") }
        }
        if let report {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(figures).write(to: URL(fileURLWithPath: report))
        }
        guard figures.sound, !strict || figures.goalsMet else {
            if !figures.finished { print("the farm did not finish within \(Int(drainTimeout)) s (farm wait: \(waited.status))") }
            print("farm-chaos: FAILED; the spool is kept in \(work)")
            throw ExitCode(1)
        }
        if dir == nil { try? FileManager.default.removeItem(atPath: work) }
        print("farm-chaos: nothing lost, nothing doubled")
    }

    /// Stops the farm, then SIGKILLs every farm process of this spool that is still there, by pid.
    private func end(_ farm: FarmCommand, _ spool: Spool, _ observer: Observer) {
        _ = try? farm.run(["stop"], timeout: 90)
        var pids = observer.pids
        pids.formUnion(spool.processes().map(\.pid))
        for pid in pids where Self.isFarm(pid, spool: spool.root) { kill(pid, SIGKILL) }
        let deadline = Clock.monotonic() + 10
        while !spool.processes().isEmpty && Clock.monotonic() < deadline { usleep(20_000) }
    }

    /// Whether `pid` still runs farm on this spool (a pid seen long ago may belong to someone else now).
    private static func isFarm(_ pid: pid_t, spool: String) -> Bool {
        guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let arguments = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return arguments.contains(spool) && arguments.first.map { $0.hasSuffix("farm") } == true
    }

    private func makeTemporaryDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/farm-chaos-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ChaosError("cannot make a temporary directory") }
        return String(cString: made)
    }
}
