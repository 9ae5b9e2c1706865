import FarmSpool
import Foundation
import Glibc

/// `farm start` (and the demo): writes the desired state, starts the detached supervisor, and waits
/// until the supervisor, the workers and the watcher all run.
public enum Launch {
    public enum Outcome: Sendable {
        /// Everything runs: the processes, by role.
        case started([FarmProcess])
        /// A supervisor already held the lock: nothing was changed.
        case alreadyRunning(supervisor: pid_t?)
    }

    /// Starts the farm with the given settings (nil keeps the last desired value). Throws when it
    /// does not come up within `timeout` seconds.
    public static func start(_ spool: Spool, workers: Int? = nil, lease: Double? = nil, maxSize: Int? = nil,
                             convert: Bool? = nil, timeout: Double = 30, roles: SupervisedRoles) throws(SpoolError) -> Outcome {
        guard let lock = try SupervisorLock.take(spool) else {
            return .alreadyRunning(supervisor: spool.processes().first { $0.role == .supervisor }?.pid)
        }
        defer { close(lock) }
        var desired = spool.desired()
        if let workers { desired.workers = workers }
        if let lease { desired.lease = lease }
        if let maxSize { desired.maxSize = maxSize }
        if let convert { desired.convert = convert }
        try spool.setDesired(desired)
        try spool.setStopping(false)
        let registrations = RegistryWatch(spool)
        let title = ["supervise", "--spool", spool.root]
        _ = try Spawn.copy(title + ["--lock-fd", String(Spawn.lockDescriptor)], title: title, spool: spool,
                           newSession: true, handingDown: lock) {
            roles.supervisor(spool, Spawn.lockDescriptor)
        }

        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let running = spool.processes()
            let roles = running.map(\.role)
            if roles.contains(.supervisor), roles.contains(.watcher),
               roles.filter({ $0 == .worker }).count >= desired.workers {
                return .started(running)
            }
            if Date() >= deadline {
                throw SpoolError(.io, "the farm did not come up within \(Int(timeout)) s "
                    + "(\(roles.filter { $0 == .worker }.count) of \(desired.workers) workers); see \(spool.logFile)")
            }
            registrations.wait()
        }
    }
}

/// Wakes `farm start` when a process registers (an entry renamed into procs/), rather than on a
/// timer that would add half its interval to every start.
private struct RegistryWatch: ~Copyable {
    private let fd: Int32

    init(_ spool: Spool) {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if fd >= 0 { _ = inotify_add_watch(fd, spool.procs, UInt32(IN_MOVED_TO)) }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Returns after the next registration, or within 50 ms (a process that died before it
    /// registered); every 10 ms without inotify.
    func wait() {
        guard fd >= 0 else { return Thread.sleep(forTimeInterval: 0.01) }
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&ready, 1, 50)
        var events = [UInt8](repeating: 0, count: 4096)
        while read(fd, &events, events.count) > 0 {}
    }
}
