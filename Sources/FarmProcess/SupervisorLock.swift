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
            opened = try FileDescriptor.open(spool.control.supervisorLock, .readWrite, options: .create,
                                             permissions: 0o600)
        } catch {
            throw SpoolError(.io, "cannot open \(spool.control.supervisorLock)", cause: error)
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

    /// Whether the supervisor holding `fd` still holds the lock: false once another process may hold it
    /// too, nil when that cannot be told now (the file system does not answer). Two ways to lose it with
    /// the descriptor still open: a network file system drops the locks of a client it lost touch with (a
    /// GlusterFS host cut off for longer than its ping time-out), and then grants the lock to the next
    /// asker, which may be a process of the same host; or the lock file was replaced, and the new one is
    /// free. Asking for the lock again answers the first (the server refuses it while another holds it,
    /// and grants it back while nobody does); comparing inodes answers the second.
    public static func isHeld(_ fd: FileDescriptor, _ spool: Spool) -> Bool? {
        do {
            guard try fd.tryLock() else { return false }
            let mine = try fd.status(), named = try FileSystem.stat(spool.control.supervisorLock)
            return mine.inode == named.inode && mine.deviceID == named.deviceID
        } catch where error == .noSuchFileOrDirectory {
            return false
        } catch {
            return nil
        }
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
