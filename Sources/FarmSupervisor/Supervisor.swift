import CoreMetrics
import FarmDesired
import FarmLists
import FarmMetrics
import FarmProcess
import FarmRegistry
import FarmSpool
import FarmSystem
import FoundationEssentials
import SystemPackage

/// The supervisor of one host (`farm supervise`, started detached by `farm start`): keeps the desired
/// state true for its host. It runs the host's desired number of workers and one watcher, replaces the
/// dead and hands back their jobs at once, retires extra workers, and reclaims expired leases (of any
/// host) as a fallback. Its watcher serves the spool, or waits as standby while another host's does.
/// While some paged list has pages to follow (SPEC §7), it keeps a follower running too (one for the
/// whole spool: the follower's lock lets one run).
///
/// Every decision is made from the process registry (procs/), not from memory, so a new supervisor
/// adopts the workers of a dead one simply by looking: the registry is the truth, and the children
/// it spawned itself are only reaped here. It signals, counts and adopts only processes of its own
/// host, and releases only their jobs: the pids of another host's processes name other processes
/// here (HostControl.swift). One thread; a tick every 100 ms.
public final class Supervisor {
    static let tick = 0.1
    /// How long a retired or stopping process may take to hand its job back before SIGKILL.
    static let graceful = 10.0
    /// A spawned process that has not registered by then is presumed stuck.
    static let startupLimit = 15.0

    private let spool: Spool
    /// The supervisor lock of its host, held for its whole life; looked at once a second (`lockLook`).
    private let lock: FileDescriptor
    private var lockLooked = 0.0
    static let lockLook = 1.0
    /// What it starts its workers, watcher and follower from (see Roles).
    private let roles: Roles
    private let registration: Registration
    /// This host's workers by pid, each in its state (WorkerLife's table): spawned and not registered yet,
    /// registered, or retiring. One registered no longer has died (or exited).
    private var workers: [Int32: WorkerLife] = [:]
    private var startingWatcher: (pid: Int32, since: Double)?
    /// The watchers alive at the last tick.
    private var knownWatchers: Set<Int32> = []
    /// A follower spawned and not yet registered.
    private var startingFollower: (pid: Int32, since: Double)?
    private var lastReclaim = 0.0
    /// This host's live processes as the registry said at its last look, and when that was (`converge`).
    private var live: [FarmProcess] = []
    private var registryLooked = 0.0
    static let registryLook = 1.0
    /// Its counters (reclaims), written from this loop: with a thread of their own, it could not copy itself.
    private let metrics: MetricsRecorder
    private let reclaims: Counter
    private var lastFold = 0.0
    /// How often the files of processes gone are folded into one (MetricFiles.swift).
    static let foldInterval = 10.0

    /// `lock` is the descriptor of the supervisor lock, already held (handed down by `start`).
    public init(spool: Spool, lock: Int32, roles: Roles) throws(SpoolError) {
        self.lock = FileDescriptor(rawValue: lock)
        guard (try? self.lock.tryLock()) == true else {
            throw SpoolError(.io, "another supervisor already runs on \(spool.root)")
        }
        self.spool = spool
        self.roles = roles
        self.registration = try spool.registry.register(.supervisor)
        metrics = MetricsRecorder(spool: spool, registration: registration)
        reclaims = Counter(label: FarmMetric.reclaims, factory: metrics.factory)
    }

    /// Supervises until `control/stopping` (`farm stop`) or a stop signal, then stops every process of its
    /// host. A stop signal (SIGTERM, SIGINT, SIGHUP: a user, an init system, a container runtime) is `farm
    /// stop` for the whole spool (SPEC §2): see `stopAsAsked`.
    public func run() {
        StopSignal.install()
        spool.log("supervisor started on host \(FarmHost.local)")
        warnOfTagClash()
        do { try Lists(spool).recover() } catch { spool.log("recovery: \(error)") }
        DeadWARCWriters.finish(spool)
        while !StopSignal.received && !spool.control.isStopping {
            // Removed under the farm (`rm -rf`): there is nothing left to supervise, nor to respawn into.
            if spool.isGone {
                stopBecauseTheSpoolIsGone()
                return
            }
            if stepsDown() { return }
            converge()
            // A tick, not the change feed: what it converges on (children's exits, other hosts' processes
            // and numbers) reaches no inotify here.
            Clock.pause(Self.tick, every: Self.tick, unless: { StopSignal.received })
        }
        // Set by `farm stop` (which then signals this process too), or not yet: then the signal came from
        // outside the farm, and this supervisor makes the stop.
        let signalled = StopSignal.received && !spool.control.isStopping
        if signalled { stopAsAsked() }
        stopEverything()
        metrics.finish()
        registration.end()
        if signalled { Shutdown.finish(spool) }
        spool.log("supervisor stopped")
    }

    /// Whether this supervisor has lost its lock (`SupervisorLock.isHeld`) to another supervisor of its
    /// host, and so ended: two would each keep the host's workers at the desired number. It leaves its
    /// workers running (they are not stopped, as a dead supervisor's are not): the other one adopts them.
    /// A lock it cannot take again while no other supervisor runs is no reason to leave: a GlusterFS
    /// server refuses it for a while after a cut-off (it still counts the lost connection's lock), and a
    /// supervisor that left then would leave its host to nobody.
    private func stepsDown() -> Bool {
        let now = Clock.monotonic()
        guard now - lockLooked >= Self.lockLook else { return false }
        lockLooked = now
        guard SupervisorLock.isHeld(lock, spool) == false else { return false }
        let me = Processes.current()
        guard spool.registry.processes().contains(where: { $0.role == .supervisor && $0.isLocal && $0.pid != me }) else {
            return false
        }
        spool.log("supervisor lost its lock on \(spool.control.supervisorLock) (the file was replaced, "
            + "or the file system gave it away): leaving this host's workers to the supervisor that holds it")
        metrics.finish()
        registration.end()
        return true
    }

    /// A stop signal that no `farm stop` sent: the stopping mark goes up before any process is told to
    /// stop, as `farm stop` sets it. Without it each worker and watcher leaving would start a supervisor
    /// again (SupervisorGuard), and so would every other host's; with it they all stop, and nothing
    /// starts until `farm start` lifts it.
    private func stopAsAsked() {
        do {
            try spool.control.setStopping(true)
            spool.log("supervisor asked to stop by a signal: stopping the farm, as `farm stop` does")
        } catch {
            spool.log("supervisor asked to stop by a signal, and cannot mark the farm stopping: \(error)")
        }
    }

    /// One tick: see deaths, then spawn or retire until the desired state holds.
    private func converge() {
        let now = Clock.monotonic()
        let desired = spool.control.desired()
        let desiredWorkers = spool.control.desiredWorkers()
        var reaped = false
        for pid in Processes.reapChildren() {
            reaped = true
            if startingWatcher?.pid == pid { startingWatcher = nil }
            if startingFollower?.pid == pid { startingFollower = nil }
            // Whatever its state, or none (killed while starting): its jobs go back.
            if workers[pid] != nil { apply(.gone, to: pid, now: now) } else { handleDeath(pid) }
        }
        // The registry, and with it the claims in active/, pieces/ and hooks/ (every pack's folder listed),
        // are read at every tick only while something changes: a child exited, a process starts or
        // retires, the farm wants another number of workers. A farm that runs steady has them read once a
        // second, when the lock of each entry and each folder of claims cost the supervisor 190 calls a tick
        // (RESULTS.md); its children's deaths are still seen at the next tick, by `reapChildren`.
        let wanted = min(max(desiredWorkers, Desired.workerRange.lowerBound), Desired.workerRange.upperBound)
        let changing = reaped || startingWatcher != nil || startingFollower != nil
            || workers.values.contains { if case .running = $0 { false } else { true } }
            || workers.values.filter(\.counts).count != wanted
        if changing || now - registryLooked >= Self.registryLook {
            registryLooked = now
            // Workers that died unseen (while no supervisor ran, or before this one adopted them) left
            // their jobs in active/: they go back now, with the registry read this look needs anyway.
            let (everyHost, orphans) = spool.registry.processesReleasingOrphans()
            if !orphans.isEmpty {
                reclaims.increment(by: orphans.count)
                spool.log("handed back \(orphans.map(\.raw).joined(separator: ", ")): their workers are gone")
                DeadWARCWriters.finish(spool)
            }
            live = everyHost.filter(\.isLocal)
        }
        let live = self.live
        let registered = Set(live.filter { $0.role == .worker }.map(\.pid))
        for pid in registered where workers[pid] == nil { workers[pid] = .running }  // adopted
        for (pid, life) in workers {
            switch life {
            case .starting(let since):
                if registered.contains(pid) {
                    apply(.registered, to: pid, now: now)
                } else if now - since > Self.startupLimit {
                    spool.log("worker \(pid) did not start in \(Int(Self.startupLimit)) s; killing it")
                    apply(.startupOverdue, to: pid, now: now)
                }
            case .running, .retiring:
                // Adopted workers are not our children: their death shows as a registry entry losing its lock.
                if !registered.contains(pid) {
                    apply(.gone, to: pid, now: now)
                } else if case .retiring(let since) = life, now - since > Self.graceful {
                    apply(.graceOver, to: pid, now: now)
                }
            }
        }

        let counted = workers.values.filter(\.counts).count
        if counted < wanted {
            for _ in counted..<wanted { spawnWorker(desired) }
        } else if counted > wanted {
            retire(counted - wanted, of: workers.filter { $0.value == .running }.map(\.key), now: now)
        }
        keepOneWatcher(live.filter { $0.role == .watcher }.map(\.pid), now: now)

        if now - lastReclaim >= 1 {
            lastReclaim = now
            reclaims.increment(by: spool.reclaimExpired(lease: desired.lease).count)
            keepFollowerIfNeeded(live.filter { $0.role == .follower }.map(\.pid), desired, now: now)
        }
        metrics.flushIfDue()
        if now - lastFold >= Self.foldInterval {
            lastFold = now
            MetricFiles.foldIfFree(spool)
            // What this host's processes that died unseen left in tmp/ (killed with the supervisor before
            // this one started, or commands killed half-way).
            spool.scratch.sweep()
        }
    }

    /// Moves worker `pid` through WorkerLife's table on `event`, and does what the table says.
    private func apply(_ event: WorkerLife.Event, to pid: Int32, now: Double) {
        guard let life = workers[pid] else { return }
        let (next, action) = WorkerLife.next(life, on: event, at: now)
        workers[pid] = next
        switch action {
        case .none: break
        case .terminate: Processes.send(.terminate, to: pid)
        case .kill: Processes.send(.kill, to: pid)
        case .handBack: handleDeath(pid)
        }
    }

    /// A process we saw die: its job goes back to the queue now, not when its lease runs out.
    private func handleDeath(_ pid: Int32) {
        let released = spool.releaseJobs(ofPid: pid)
        reclaims.increment(by: released.count)
        if !released.isEmpty {
            spool.log("process \(pid) died; handed back \(released.map(\.raw).joined(separator: ", "))")
        }
        // Killed half-way, it may have left scratch files in tmp/ that nobody else would remove.
        spool.scratch.sweep(ofDead: pid)
        DeadWARCWriters.finish(spool)
    }

    private func spawnWorker(_ desired: Desired) {
        let title = ["work", "--spool", spool.root, "--supervised"]
        let arguments = title + ["--lease", String(desired.lease), "--max-size", String(desired.maxSize)]
            + (desired.convert ? [] : ["--no-convert"])
        do {
            let pid = try Spawn.copy(arguments, title: title, spool: spool) {
                roles.worker(spool, desired)
            }
            workers[pid] = .starting(since: Clock.monotonic())
        } catch {
            spool.log("\(error)")
        }
    }

    /// Asks `count` workers to hand back their jobs and exit: idle ones first, then the youngest.
    private func retire(_ count: Int, of candidates: [Int32], now: Double) {
        let busy = Set(spool.activeJobs().filter(\.owner.isLocal).map(\.owner.pid))
        let chosen = candidates.sorted { (busy.contains($0) ? 1 : 0, -$0) < (busy.contains($1) ? 1 : 0, -$1) }
        for pid in chosen.prefix(count) { apply(.retire, to: pid, now: now) }
    }

    /// One watcher process on this host: the one that serves the spool, or the standby of another
    /// host's (FarmWatcher's WatcherRole).
    private func keepOneWatcher(_ watchers: [Int32], now: Double) {
        if let starting = startingWatcher, watchers.contains(starting.pid) || now - starting.since > Self.startupLimit {
            startingWatcher = nil
        }
        knownWatchers = Set(watchers)
        for extra in watchers.dropFirst() { Processes.send(.terminate, to: extra) }
        guard watchers.isEmpty, startingWatcher == nil else { return }
        do {
            let pid = try Spawn.copy(["watch", "--spool", spool.root, "--supervised"], spool: spool) {
                roles.watcher(spool)
            }
            startingWatcher = (pid, now)
        } catch {
            spool.log("\(error)")
        }
    }

    /// Starts a follower when some list has pages to follow and none runs (it exits once there are none).
    private func keepFollowerIfNeeded(_ followers: [Int32], _ desired: Desired, now: Double) {
        if let starting = startingFollower,
           followers.contains(starting.pid) || now - starting.since > Self.startupLimit {
            startingFollower = nil
        }
        guard followers.isEmpty, startingFollower == nil, !Lists(spool).listsFollowingPages().isEmpty else { return }
        do {
            let pid = try Spawn.copy(["follow", "--spool", spool.root, "--supervised"], spool: spool) {
                roles.follower(spool, desired)
            }
            startingFollower = (pid, now)
        } catch {
            spool.log("\(error)")
        }
    }

    /// Tells every worker and the watcher of this host to stop, waits for them to hand their jobs back,
    /// kills what is left after the grace period and hands its jobs back itself.
    private func stopEverything() {
        let others = spool.registry.processes().filter { $0.isLocal && $0.role != .supervisor }.map(\.pid)
        let starting = workers.filter { if case .starting = $0.value { true } else { false } }.keys
        let pids = Set(others).union(starting).union(startingWatcher.map { [$0.pid] } ?? [])
            .union(startingFollower.map { [$0.pid] } ?? [])
        for pid in pids { Processes.send(.terminate, to: pid) }
        var left = pids
        Clock.poll(every: 0.05, for: Self.graceful) {
            _ = Processes.reapChildren()
            let alive = Set(spool.registry.processes().filter(\.isLocal).map(\.pid))
            left = left.filter { alive.contains($0) || (starting.contains($0) && Processes.exists($0)) }
            return left.isEmpty
        }
        for pid in left { Processes.send(.kill, to: pid) }
        _ = Processes.reapChildren()
        for pid in pids { handleDeath(pid) }
    }

    /// Says so in the log when another host's processes carry this host's tag: their claims would look
    /// like this host's (Owner), and a dead worker's pid here could hand back a live one's job there
    /// (which that worker notices at its next renewal; nothing is lost or doubled, only redone).
    private func warnOfTagClash() {
        let local = FarmHost.local
        for host in Set(spool.registry.processes().map(\.host)) where host != local && host.tag == local.tag {
            spool.log("hosts \(local) and \(host) share the claim tag \(local.tag): rename one of them")
        }
    }

    /// The spool was removed: the registry went with it, so the processes this supervisor knows of are
    /// told to stop (they notice on their own too), their exits collected for a moment, and it leaves.
    private func stopBecauseTheSpoolIsGone() {
        spool.logGone("supervisor")
        let pids = Set(workers.keys).union(knownWatchers)
            .union(startingWatcher.map { [$0.pid] } ?? [])
        for pid in pids { Processes.send(.terminate, to: pid) }
        var left = pids
        Clock.poll(every: 0.05, for: 2) {
            left.subtract(Processes.reapChildren())
            left = left.filter { Processes.exists($0) }
            return left.isEmpty
        }
    }
}
