import FarmDesired
import FarmRegistry
import FarmSpool
import FarmSystem
import FoundationEssentials
import SystemPackage

/// `farm start` (and the demo): writes the desired state, starts the detached supervisor of this host,
/// and waits until it, this host's workers and its watcher (serving, or standby to another host's) all
/// run. Another host's farm on the same spool is left as it is.
public enum Launch {
    public enum Outcome: Sendable {
        /// Everything runs: the processes, by role.
        case started([FarmProcess])
        /// This host's supervisor already held its lock: nothing was changed.
        case alreadyRunning(supervisor: Int32?)
    }

    /// Starts the farm with `change` made to its desired state, its processes run from `roles`. Throws when
    /// it does not come up within `timeout` seconds.
    public static func start(_ spool: Spool, _ change: DesiredChange = DesiredChange(), roles: Roles,
                             timeout: Double = 30) throws(SpoolError) -> Outcome {
        guard let lock = try takeOver(spool, change) else {
            return .alreadyRunning(supervisor: spool.registry.processes().first { $0.isLocal && $0.role == .supervisor }?.pid)
        }
        defer { lock.closeQuietly() }
        let workers = spool.control.desiredWorkers()
        let title = ["supervise", "--spool", spool.root]
        _ = try Spawn.copy(title + ["--lock-fd", String(Spawn.lockDescriptor)], title: title, spool: spool,
                           newSession: true, handingDown: lock) {
            roles.supervisor(spool, Spawn.lockDescriptor, roles)
        }

        var running: [FarmProcess] = []
        var up: [Role] = []
        // A poll, not inotify on procs/: closing an inotify instance waits for the kernel's SRCU
        // grace period, 10-20 ms on a busy machine, about as long as the whole start.
        let came = Clock.poll(every: 0.002, for: timeout) {
            running = spool.registry.processes().filter(\.isLocal)
            up = running.map(\.role)
            return up.contains(.supervisor) && up.contains(.watcher) && up.filter({ $0 == .worker }).count >= workers
        }
        guard came == .ready else {
            throw SpoolError(.io, "the farm did not come up within \(Int(timeout)) s "
                + "(\(up.filter { $0 == .worker }.count) of \(workers) workers); see \(spool.logFile)")
        }
        return .started(running)
    }

    /// `farm start --foreground`: the same start, with the supervisor run in this process instead of a
    /// detached copy, until SIGTERM or `farm stop`. A service manager needs it so: systemd's
    /// farm@.service watches the process it started, and sends its journal what that process writes.
    /// Returns the supervisor's exit status, or nil when this host's supervisor already runs (then
    /// nothing was changed).
    public static func supervise(_ spool: Spool, _ change: DesiredChange = DesiredChange(), roles: Roles)
        throws(SpoolError) -> Int32? {
        guard let lock = try takeOver(spool, change) else { return nil }
        defer { lock.closeQuietly() }
        return roles.supervisor(spool, lock.rawValue, roles)
    }

    /// What every start does before its supervisor runs: takes this host's supervisor lock, then writes
    /// the desired state with `change` made to it and lifts a `farm stop`. Nil when the lock is held.
    private static func takeOver(_ spool: Spool, _ change: DesiredChange) throws(SpoolError) -> FileDescriptor? {
        guard let lock = try SupervisorLock.take(spool) else { return nil }
        do {
            try spool.control.setDesired(change.applied(to: spool.control.desired()))
            try spool.control.setDesiredWorkers(change.workers ?? spool.control.desiredWorkers())
            try spool.control.setStopping(false)
        } catch {
            lock.closeQuietly()
            throw error
        }
        return lock
    }
}
