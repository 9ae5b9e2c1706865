import FarmSpool
import FarmSystem
import SystemPackage

/// `control/supervisor.<host>.lock`: an flock held by the one live supervisor for its whole life.
/// Free means there is no supervisor; taking it is the right to start one.
public enum SupervisorLock {
    /// Takes the lock when it is free and returns its descriptor (above 3, close-on-exec, so it can
    /// be handed down with `Spawn.farm(handingDown:)`); nil when a supervisor holds it.
    public static func take(_ spool: Spool) throws(SpoolError) -> FileDescriptor? {
        let opened: FileDescriptor
        do {
            opened = try FileDescriptor.open(spool.supervisorLock, .readWrite, options: .create, permissions: 0o600)
        } catch {
            throw SpoolError(.io, "cannot open \(spool.supervisorLock)", cause: error)
        }
        defer { opened.closeQuietly() }
        let fd: FileDescriptor
        do { fd = try opened.duplicate(atLeast: 10) } catch {
            throw SpoolError(.io, "cannot duplicate a descriptor", cause: error)
        }
        guard (try? fd.tryLock()) == true else {
            fd.closeQuietly()
            return nil
        }
        return fd
    }

    /// Starts a detached supervisor unless one runs; returns its pid, or nil when one was running.
    /// The lock is taken here and handed down, so two callers can never start two supervisors.
    public static func launchSupervisor(_ spool: Spool) throws(SpoolError) -> Int32? {
        guard let fd = try take(spool) else { return nil }
        defer { fd.closeQuietly() }
        return try Spawn.farm(["supervise", "--spool", spool.root, "--lock-fd", String(Spawn.lockDescriptor)],
                              spool: spool, newSession: true, handingDown: fd)
    }
}
