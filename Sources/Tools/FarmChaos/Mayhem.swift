import FarmSpool
import FarmSystem
import Foundation
import Glibc
import Synchronization

/// Set by SIGINT or SIGTERM: the chaos stops early, and the farm is still stopped and checked.
let interrupted = Atomic<Bool>(false)

/// The chaos itself: for a while, SIGKILLs farm processes at random (workers most often, also the
/// watcher, the supervisor, alone or just before a worker so that nobody sees that worker die, and
/// coordinators in the middle of `farm add`), and scales, pauses and resumes at random between the kills.
/// Runs on the main thread.
final class Mayhem {
    struct Tally {
        var kills: [String: Int] = [:]
        var adds = 0
        var scales = 0
        var pauses = 0
        /// Control commands (scale, pause, resume, add) that failed: each is a finding.
        var commandErrors: [String] = []
        /// Times no farm process at all ran for 2 s (then `farm start` revived it): each is a finding.
        var farmDown = 0
        var total: Int { kills.values.reduce(0, +) }
    }

    private let farm: FarmCommand
    private let spool: Spool
    private let corpus: Corpus
    private let observer: Observer
    private let killsPerSecond: Double
    private let workers: ClosedRange<Int>
    private var random: SplitMix64
    private(set) var tally = Tally()
    private var extras = 0
    /// How long an add takes when it is not killed, to aim kills inside it.
    private var addSeconds = 0.3
    private var resumeAt: Double?

    init(farm: FarmCommand, spool: Spool, corpus: Corpus, observer: Observer, killsPerSecond: Double,
         workers: ClosedRange<Int>, seed: UInt64) {
        self.farm = farm
        self.spool = spool
        self.corpus = corpus
        self.observer = observer
        self.killsPerSecond = killsPerSecond
        self.workers = workers
        random = SplitMix64(seed: seed)
    }

    /// Runs the chaos for `seconds`, then leaves the farm resumed.
    func run(seconds: Double) throws {
        let start = Clock.monotonic(), end = start + seconds
        var nextKill = start + exponential(mean: 1 / killsPerSecond)
        var nextControl = start + exponential(mean: 2.5)
        var lastLine = start
        var emptySince: Double?
        while Clock.monotonic() < end && !interrupted.load(ordering: .relaxed) {
            let now = Clock.monotonic()
            if let due = resumeAt, now >= due {
                command(["resume"])
                resumeAt = nil
            }
            if now >= nextControl {
                try control()
                nextControl = max(nextControl + exponential(mean: 2.5), Clock.monotonic() - 1)
            }
            if now >= nextKill {
                try killSomething()
                // Catch up after a slow action, but never in a burst of more than a second's worth.
                nextKill = max(nextKill + exponential(mean: 1 / killsPerSecond), Clock.monotonic() - 1)
            }
            // Nothing runs, so nothing can bring the supervisor back: say so, and start the farm again.
            if spool.processes().isEmpty {
                if emptySince == nil { emptySince = now }
                if let since = emptySince, now - since >= 2 {
                    tally.farmDown += 1
                    print(String(format: "chaos: %3.0f s, no farm process has run for 2 s; farm start", now - start))
                    command(["start"])
                    emptySince = nil
                }
            } else {
                emptySince = nil
            }
            if now - lastLine >= 10 {
                lastLine = now
                print(String(format: "chaos: %3.0f s, %d kills, %d farm processes", now - start, tally.total,
                             spool.processes().count))
            }
            let wake = min(nextKill, nextControl, resumeAt ?? .infinity, end)
            let pause = max(0, min(0.05, wake - Clock.monotonic()))
            if pause > 0 { usleep(useconds_t(pause * 1e6)) }
        }
        if resumeAt != nil { command(["resume"]) }
    }

    // MARK: Kills

    private func killSomething() throws {
        let live = spared(spool.processes())
        let roll = Int.random(in: 0..<100, using: &random)
        if roll < 68 {
            killWorker(live)
        } else if roll < 76, let watcher = live.first(where: { $0.role == .watcher }) {
            if kill(watcher.pid, SIGKILL) == 0 { count("watcher") }
        } else if roll < 86, let supervisor = live.first(where: { $0.role == .supervisor }) {
            let now = Clock.monotonic()
            observer.supervisorKilled(supervisor.pid, at: now)
            if kill(supervisor.pid, SIGKILL) == 0 { count("supervisor") }
            // Half the time a busy worker dies right after: nobody sees that death, the lease must act.
            if Bool.random(using: &random) {
                usleep(useconds_t(Int.random(in: 20_000...200_000, using: &random)))
                killWorker(spared(spool.processes().filter { $0.pid != supervisor.pid }), busyOnly: true)
            }
        } else if roll >= 86 {
            try killCoordinator()
        } else {
            killWorker(live)
        }
    }

    /// The processes that may be killed now: any of them, except the last one left, whatever its role.
    /// A survivor brings the others back (a supervisor its workers and watcher, a worker or the watcher
    /// a dead supervisor); killing the very last leaves nothing that could, until the next `farm start`
    /// (killing everything at once is a case of the kill tests).
    private func spared(_ live: [FarmProcess]) -> [FarmProcess] {
        live.count > 1 ? live : []
    }

    private func killWorker(_ live: [FarmProcess], busyOnly: Bool = false) {
        let all = live.filter { $0.role == .worker }.map(\.pid)
        let busy = all.filter(observer.busyWorkers().contains)
        let pool = !busy.isEmpty && (busyOnly || Int.random(in: 0..<10, using: &random) < 8) ? busy : all
        guard !busyOnly || !busy.isEmpty, let pid = pool.randomElement(using: &random) else { return }
        let now = Clock.monotonic()
        if kill(pid, SIGKILL) == 0 {
            count("worker")
            observer.workerKilled(pid, at: now)
        }
    }

    /// Starts `farm add` of a new list (or, a third of the time, of one already made: add is idempotent)
    /// and kills it at a random moment of its run, or lets it finish now and then to learn how long it
    /// takes. Killed adds are run again at the end: the lists must then be exactly the manifests' union.
    private func killCoordinator() throws {
        let old = corpus.manifests.dropFirst()
        let path: String
        if !old.isEmpty && Int.random(in: 0..<3, using: &random) == 0 {
            path = old.randomElement(using: &random)!
        } else {
            extras += 1
            path = try corpus.makeList("extra-\(extras).json", count: 8)
        }
        let process = try farm.start(["add", path])
        let started = Clock.monotonic()
        let killing = Int.random(in: 0..<100, using: &random) < 85
        let at = started + Double.random(in: 0...addSeconds * 1.2, using: &random)
        while process.isRunning && (!killing || Clock.monotonic() < at) { usleep(2000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal {
            count("coordinator")
        } else if process.terminationStatus == 0 {
            tally.adds += 1
            addSeconds = addSeconds * 0.7 + (Clock.monotonic() - started) * 0.3
        } else {
            tally.commandErrors.append("farm add \(path) exited \(process.terminationStatus)")
        }
    }

    private func count(_ role: String) {
        tally.kills[role, default: 0] += 1
    }

    // MARK: Control

    private func control() throws {
        if resumeAt == nil && Bool.random(using: &random) {
            command(["pause"])
            tally.pauses += 1
            resumeAt = Clock.monotonic() + Double.random(in: 0.3...1.5, using: &random)
        } else {
            command(["scale", String(Int.random(in: workers, using: &random))])
            tally.scales += 1
        }
    }

    private func command(_ arguments: [String]) {
        do {
            let result = try farm.run(arguments, timeout: 60)
            if result.status != 0 {
                tally.commandErrors.append("farm \(arguments.joined(separator: " ")): " + result.error
                    .trimmingCharacters(in: .whitespacesAndNewlines))
            }
        } catch {
            tally.commandErrors.append("farm \(arguments.joined(separator: " ")): \(error)")
        }
    }

    private func exponential(mean: Double) -> Double {
        -mean * log(1 - Double.random(in: 0..<1, using: &random))
    }
}
