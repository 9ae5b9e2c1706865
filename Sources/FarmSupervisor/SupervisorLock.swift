import FarmSpool
import Glibc

/// `control/supervisor.lock`: an flock held by the one live supervisor for its whole life.
/// Free means there is no supervisor; taking it is the right to start one.
public enum SupervisorLock {
    /// Takes the lock when it is free and returns its descriptor (above 3, close-on-exec, so it can
    /// be handed down with `Spawn.farm(handingDown:)`); nil when a supervisor holds it.
    public static func take(_ spool: Spool) throws(SpoolError) -> Int32? {
        let opened = open(spool.supervisorLock, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard opened >= 0 else {
            throw SpoolError(.io, "cannot open \(spool.supervisorLock): \(String(cString: strerror(errno)))")
        }
        let fd = fcntl(opened, F_DUPFD_CLOEXEC, 10)
        close(opened)
        guard fd >= 0 else { throw SpoolError(.io, "cannot duplicate a descriptor: \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Starts a detached supervisor unless one runs; returns its pid, or nil when one was running.
    /// The lock is taken here and handed down, so two callers can never start two supervisors.
    public static func launchSupervisor(_ spool: Spool) throws(SpoolError) -> pid_t? {
        guard let fd = try take(spool) else { return nil }
        defer { close(fd) }
        return try Spawn.farm(["supervise", "--spool", spool.root, "--lock-fd", String(Spawn.lockDescriptor)],
                              spool: spool, newSession: true, handingDown: fd)
    }
}
