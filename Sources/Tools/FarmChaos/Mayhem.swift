import FarmRegistry
import FarmSpool
import FarmSystem
import Foundation
import Glibc
import Synchronization

/// Set by SIGINT or SIGTERM: the chaos stops early, and the farm is still stopped and checked.
let interrupted = Atomic<Bool>(false)

/// Where the chaos runs farm: the machine (one host, every process its own), or one host of a cluster.
struct ChaosHost {
    let name: String
    let farm: FarmCommand
    /// Whether a farm process runs on this host.
    let owns: (pid_t) -> Bool
}

/// The chaos itself: for a while, SIGKILLs farm processes at random (workers most often, also the
/// watcher, the supervisor, alone or just before a worker so that nobody sees that worker die, the
/// follower of a paged list, often in the middle of a page, and coordinators in the middle of `farm add`),
/// and scales, pauses and resumes at random between the kills.
/// On a cluster each kill and each scale picks a host first, among those not out (`outages`), whose
/// cut-offs and deaths run between the kills. Runs on the main thread.
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
        /// Follower kills (among `kills["follower"]`) that hit it while a page's answer was arriving.
        var followerMidPage = 0
        var total: Int { kills.values.reduce(0, +) }
    }

    private let hosts: [ChaosHost]
    private let spool: Spool
    private let corpus: ChaosCorpus
    private let observer: Observer
    private let killsPerSecond: Double
    private let workers: ClosedRange<Int>
    private var random: SplitMix64
    private(set) var tally = Tally()
    private var extras = 0
    /// How long an add takes when it is not killed, to aim kills inside it.
    private var addSeconds = 0.3
    private var resumeAt: Double?
    private let outages: Outages?
    private let paged: PagedList?

    init(hosts: [ChaosHost], spool: Spool, corpus: ChaosCorpus, observer: Observer, killsPerSecond: Double,
         workers: ClosedRange<Int>, seed: UInt64, outages: Outages? = nil, paged: PagedList? = nil) {
        self.hosts = hosts
        self.paged = paged
        self.outages = outages
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
        var emptySince: [String: Double] = [:]
        while Clock.monotonic() < end && !interrupted.load(ordering: .relaxed) {
            let now = Clock.monotonic()
            try outages?.step(remaining: end - now)
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
            // Nothing runs on a host, so nothing can bring its supervisor back: say so, and start it again.
            let live = spool.registry.processes()
            for host in up() {
                guard !live.contains(where: { host.owns($0.pid) }) else {
                    emptySince[host.name] = nil
                    continue
                }
                let since = emptySince[host.name] ?? now
                emptySince[host.name] = since
                if now - since >= 2 {
                    tally.farmDown += 1
                    print(String(format: "chaos: %3.0f s, no farm process has run%@ for 2 s; farm start", now - start,
                                 host.name.isEmpty ? "" : " on " + host.name))
                    command(["start"], on: host)
                    emptySince[host.name] = nil
                }
            }
            if now - lastLine >= 10 {
                lastLine = now
                let perHost = hosts.count < 2 ? "" : " (" + hosts.map { host in
                    "\(host.name) \(live.filter { host.owns($0.pid) }.count)"
                }.joined(separator: ", ") + ")"
                print(String(format: "chaos: %3.0f s, %d kills, %d farm processes", now - start, tally.total, live.count)
                    + perHost)
            }
            let wake = min(nextKill, nextControl, resumeAt ?? .infinity, end)
            let pause = max(0, min(0.05, wake - Clock.monotonic()))
            if pause > 0 { usleep(useconds_t(pause * 1e6)) }
        }
        if resumeAt != nil { command(["resume"]) }
    }

    // MARK: Kills

    /// The hosts not out now (every host when nothing is out).
    private func up() -> [ChaosHost] {
        hosts.filter { outages?.isOut($0.name) != true }
    }

    /// A host not out, at random (the machine itself, drawing nothing, when there is one host).
    private func pickHost() -> ChaosHost? {
        let candidates = up()
        return candidates.count == 1 ? candidates[0] : candidates.randomElement(using: &random)
    }

    private func killSomething() throws {
        guard let host = pickHost() else { return }
        let live = spared(spool.registry.processes().filter { host.owns($0.pid) })
        let roll = Int.random(in: 0..<100, using: &random)
        if roll < 15, let follower = live.first(where: { $0.role == .follower }) {
            killFollower(follower.pid)
        } else if roll < 68 {
            killWorker(live, on: host)
        } else if roll < 76, let watcher = live.first(where: { $0.role == .watcher }) {
            if kill(watcher.pid, SIGKILL) == 0 { count("watcher") }
        } else if roll < 86, let supervisor = live.first(where: { $0.role == .supervisor }) {
            let now = Clock.monotonic()
            observer.supervisorKilled(supervisor.pid, at: now)
            if kill(supervisor.pid, SIGKILL) == 0 { count("supervisor") }
            // Half the time a busy worker dies right after: nobody sees that death, the lease must act.
            if Bool.random(using: &random) {
                usleep(useconds_t(Int.random(in: 20_000...200_000, using: &random)))
                killWorker(spared(spool.registry.processes().filter { $0.pid != supervisor.pid && host.owns($0.pid) }),
                           on: host, busyOnly: true)
            }
        } else if roll >= 86 {
            try killCoordinator()
        } else {
            killWorker(live, on: host)
        }
    }

    /// The processes that may be killed now (of one host): any of them, except the last one left, whatever
    /// its role.
    /// A survivor brings the others back (a supervisor its workers and watcher, a worker or the watcher
    /// a dead supervisor); killing the very last leaves nothing that could, until the next `farm start`
    /// (killing everything at once is a case of the kill tests).
    private func spared(_ live: [FarmProcess]) -> [FarmProcess] {
        live.count > 1 ? live : []
    }

    private func killWorker(_ live: [FarmProcess], on host: ChaosHost, busyOnly: Bool = false) {
        let all = live.filter { $0.role == .worker }.map(\.pid)
        let busy = all.filter(observer.busyWorkers().contains)
        let pool = !busy.isEmpty && (busyOnly || Int.random(in: 0..<10, using: &random) < 8) ? busy : all
        guard !busyOnly || !busy.isEmpty, let pid = pool.randomElement(using: &random) else { return }
        let now = Clock.monotonic()
        if kill(pid, SIGKILL) == 0 {
            count("worker")
            observer.workerKilled(pid, on: host.name, at: now)
        }
    }

    /// Kills the follower; half the time once a page's answer has begun (waiting half a second at most),
    /// else wherever it is: between pages, or appending one.
    private func killFollower(_ pid: pid_t) {
        if let paged, Bool.random(using: &random) {
            Clock.poll(every: 0.005, for: 0.5) { paged.pageInFlight }
        }
        let midPage = paged?.pageInFlight == true
        guard kill(pid, SIGKILL) == 0 else { return }
        count("follower")
        if midPage { tally.followerMidPage += 1 }
        paged?.followerKilled(at: Clock.monotonic())
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
        guard let host = pickHost() else { return }
        // Its output is a line or two: the pipes never fill, and are read once it has ended.
        let process = try host.farm.start(["add", path], capture: true)
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
            let said = (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
            tally.commandErrors.append("farm add \(path)" + (host.name.isEmpty ? "" : " on " + host.name)
                + " exited \(process.terminationStatus): "
                + String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
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
            guard let host = pickHost() else { return }
            // Every other scale changes each worker's transfers too (SPEC §13): a worker left with fewer
            // hands back the jobs of the transfers it drops, mid-transfer, while workers are killed.
            let transfers = Bool.random(using: &random) ? ["--transfers", String(Int.random(in: 1...8, using: &random))] : []
            command(["scale", String(Int.random(in: workers, using: &random))] + transfers, on: host)
            tally.scales += 1
        }
    }

    /// Runs a control command on `host` (pause and resume act on the whole spool: on any host not out).
    private func command(_ arguments: [String], on host: ChaosHost? = nil) {
        guard let farm = (host ?? up().first ?? hosts.first)?.farm else { return }
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
