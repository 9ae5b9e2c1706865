import FarmSystem
import SystemPackage

/// The roles of the farm's long-running processes (SPEC §2).
public enum Role: String, Sendable, CaseIterable {
    case supervisor, worker, watcher
}

/// A live farm process, as registered in procs/.
public struct FarmProcess: Sendable, Equatable {
    public let role: Role
    public let pid: Int32
}

/// A process's entry in `procs/<role>.<pid>.<nonce>`, locked for as long as the process lives.
///
/// The flock is the proof of life: the kernel drops it when the process dies, however it dies, so a
/// dead process is never mistaken for a live one (and a recycled pid cannot inherit the entry).
public final class Registration: Sendable {
    private let fd: FileDescriptor
    private let path: String

    fileprivate init(fd: FileDescriptor, path: String) {
        self.fd = fd
        self.path = path
    }

    /// The entry's name in procs/, `<role>.<pid>.<nonce>`: what the process's other files of its own
    /// are named after (its metrics), so that its entry tells whether their writer lives.
    public var name: String { String(path.split(separator: "/").last!) }

    /// Removes the entry (a clean exit); a killed process leaves it for `processes()` to sweep.
    public func end() {
        try? FileSystem.unlink(path)
        fd.closeQuietly()
    }
}

extension Spool {
    /// Registers this process as `role` until it exits or calls `end()`.
    public func register(_ role: Role) throws(SpoolError) -> Registration {
        let name = role.rawValue + "." + String(Processes.current()) + "."
            + hex(UInt64.random(in: .min ... .max)).prefix(8)
        let staged = tmp + "/proc-" + name
        do throws(Errno) {
            // Locked before it is visible: nobody may see the entry unlocked and sweep it.
            let fd = try FileDescriptor.open(staged, .readWrite, options: [.create, .exclusiveCreate],
                                             permissions: 0o600)
            do throws(Errno) {
                guard try fd.tryLock() else { throw Errno.resourceTemporarilyUnavailable }
                try FileSystem.rename(staged, procs + "/" + name)
            } catch {
                fd.closeQuietly()
                throw error
            }
            return Registration(fd: fd, path: procs + "/" + name)
        } catch {
            try? FileSystem.unlink(staged)
            throw SpoolError(.io, "cannot register this \(role.rawValue) in \(procs)", cause: error)
        }
    }

    /// Whether the process registered as `name` (a `Registration.name`) is alive: its entry is there and
    /// locked. False once it died or ended its registration, and never true again for that name. An entry
    /// that cannot be looked at (out of descriptors) counts as alive: a caller acting on a death must be sure.
    public func isRegistered(_ name: String) -> Bool {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(procs + "/" + name, .readOnly) } catch {
            return error != .noSuchFileOrDirectory
        }
        defer { fd.closeQuietly() }
        return (try? fd.tryLock(shared: true)) != true
    }

    /// The farm processes alive now, by role then pid. Entries of dead processes are removed.
    public func processes() -> [FarmProcess] {
        var alive: [FarmProcess] = []
        for name in (try? FileSystem.listDirectory(procs)) ?? [] {
            let parts = name.split(separator: ".")
            guard parts.count == 3, let role = Role(rawValue: String(parts[0])), let pid = Int32(parts[1]) else {
                setAside(procs + "/" + name, reason: "not a process entry")
                continue
            }
            let path = procs + "/" + name
            guard let fd = try? FileDescriptor.open(path, .readOnly) else { continue }
            defer { fd.closeQuietly() }
            if (try? fd.tryLock(shared: true)) == true {
                try? FileSystem.unlink(path)  // nobody holds it: its process is gone
            } else {
                alive.append(FarmProcess(role: role, pid: pid))
            }
        }
        return alive.sorted { ($0.role.rawValue, $0.pid) < ($1.role.rawValue, $1.pid) }
    }
}
