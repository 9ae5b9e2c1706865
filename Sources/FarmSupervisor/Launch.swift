import FarmSpool
import FarmSystem
import Foundation

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

    /// Starts the farm with `change` made to its desired state. Throws when it does not come up within
    /// `timeout` seconds.
    public static func start(_ spool: Spool, _ change: DesiredChange = DesiredChange(), timeout: Double = 30,
                             roles: SupervisedRoles) throws(SpoolError) -> Outcome {
        guard let lock = try SupervisorLock.take(spool) else {
            return .alreadyRunning(supervisor: spool.processes().first { $0.isLocal && $0.role == .supervisor }?.pid)
        }
        defer { lock.closeQuietly() }
        let desired = change.applied(to: spool.desired())
        let workers = change.workers ?? spool.desiredWorkers()
        try spool.setDesired(desired)
        try spool.setDesiredWorkers(workers)
        try spool.setStopping(false)
        let title = ["supervise", "--spool", spool.root]
        _ = try Spawn.copy(title + ["--lock-fd", String(Spawn.lockDescriptor)], title: title, spool: spool,
                           newSession: true, handingDown: lock) {
            roles.supervisor(spool, Spawn.lockDescriptor)
        }

        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let running = spool.processes().filter(\.isLocal)
            let roles = running.map(\.role)
            if roles.contains(.supervisor), roles.contains(.watcher),
               roles.filter({ $0 == .worker }).count >= workers {
                return .started(running)
            }
            if Date() >= deadline {
                throw SpoolError(.io, "the farm did not come up within \(Int(timeout)) s "
                    + "(\(roles.filter { $0 == .worker }.count) of \(workers) workers); see \(spool.logFile)")
            }
            // A poll, not inotify on procs/: closing an inotify instance waits for the kernel's SRCU
            // grace period, 10-20 ms on a busy machine, about as long as the whole start.
            Thread.sleep(forTimeInterval: 0.002)
        }
    }
}
