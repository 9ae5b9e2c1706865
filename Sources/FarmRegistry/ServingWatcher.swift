import FarmSpool
import FarmSystem
import SystemPackage

/// `control/watcher.lock`, held (flock) by the one watcher that serves the whole spool (SPEC §11): every
/// host's supervisor keeps a watcher, and those that do not hold the lock wait as standby, trying it
/// again and again, until the one serving dies and the kernel (or the shared file system) lets go of it.
/// The holder writes its registration name into the file, so `farm ps` can tell which one serves
/// without probing the lock. Owned by the watcher process that took it; released when it exits.
public final class ServingLock: Sendable {
    private let fd: FileDescriptor

    fileprivate init(fd: FileDescriptor) {
        self.fd = fd
    }

    /// Lets another watcher serve.
    public func release() { fd.closeQuietly() }
}

extension Registry {
    /// The right to serve the spool as its watcher, for the process registered as `registration`; nil
    /// while another watcher holds it.
    public func takeWatcherLock(for registration: Registration) throws(SpoolError) -> ServingLock? {
        let fd: FileDescriptor, lock = spool.control.watcherLock
        do { fd = try FileDescriptor.open(lock, .readWrite, options: .create, permissions: 0o600) } catch {
            throw SpoolError(.io, "cannot open \(lock)", cause: error)
        }
        guard (try? fd.tryLock()) == true else {
            fd.closeQuietly()
            return nil
        }
        // Only for `farm ps`: a name left by a watcher that died names a process that is gone.
        _ = try? fd.resize(to: 0)
        _ = try? fd.writeAll(toAbsoluteOffset: 0, Array(registration.name.utf8))
        return ServingLock(fd: fd)
    }

    /// The watcher that serves the spool now, as its lock says; nil when none has said so.
    public func servingWatcher() -> FarmProcess? {
        guard let bytes = try? FileSystem.readFile(spool.control.watcherLock, limit: 512), !bytes.isEmpty else {
            return nil
        }
        return Self.registrant(String(decoding: bytes, as: UTF8.self))
    }
}
