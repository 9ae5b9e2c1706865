// The registry of farm processes, `procs/`: who is alive, by the flock each holds on its entry. Built on
// FarmSpool (its paths are Spool's); the protocol judges claims by their leases, and only a host's own
// processes by this (PROTOCOL.md, "Many hosts").
import FarmSpool
import FarmSystem
import SystemPackage

/// The roles of the farm's long-running processes (SPEC §2); the follower follows the pages of paged
/// lists (SPEC §7) while there are some to follow.
public enum Role: String, Sendable, CaseIterable {
    case supervisor, worker, watcher, follower
}

/// A live farm process, as registered in procs/.
public struct FarmProcess: Sendable, Equatable {
    public let role: Role
    /// Its pid on its host: a pid means nothing on another host, so only its own host signals it.
    public let pid: Int32
    /// The machine it runs on.
    public let host: FarmHost

    /// Whether it runs on this machine: only then may its pid be signalled or looked at.
    public var isLocal: Bool { host.isLocal }
}

/// A process's entry in `procs/<role>.<pid>.<nonce>.<host>` (`FarmHost.raw`), locked for as long as
/// the process lives.
///
/// The flock is the proof of life: the kernel drops it when the process dies, however it dies, so a
/// dead process is never mistaken for a live one (and a recycled pid cannot inherit the entry). A
/// shared file system enforces it across hosts (GlusterFS does), so every host sees every host's
/// processes; a host cut off from the others keeps its locks in their eyes until the file system
/// gives up on it, which is why claims are judged by their lease, not by this.
public final class Registration: Sendable {
    private let fd: FileDescriptor
    private let path: String

    fileprivate init(fd: FileDescriptor, path: String) {
        self.fd = fd
        self.path = path
    }

    /// The entry's name in procs/, `<role>.<pid>.<nonce>.<host>`: what the process's other files of
    /// its own are named after (its metrics), so that its entry tells whether their writer lives.
    public var name: String { String(path.split(separator: "/").last!) }

    /// Writes what the process has applied of its host's settings into its entry, replacing what it said
    /// before (a worker says the bandwidth cap it follows): for a command that returns only once the change
    /// it made is in force (`farm limit`; see `Registry.said(by:)`). Unwritten, the command waits its deadline.
    public func say(_ text: String) {
        let bytes = Array(text.utf8)
        _ = try? bytes.withUnsafeBytes { buffer throws(Errno) in try fd.write(contentsOf: buffer, at: 0) }
        try? fd.truncate(to: bytes.count)
    }

    /// Removes the entry (a clean exit); a killed process leaves it for `processes()` to sweep.
    public func end() {
        try? FileSystem.unlink(path)
        fd.closeQuietly()
    }
}

/// The registry of processes, `procs/`: who is alive, what each said, the serving watcher, and the release
/// of the claims of the gone. A part of a `Spool`, reached as `spool.registry`. A value; any thread.
public struct Registry: Sendable {
    package let spool: Spool

    init(_ spool: Spool) { self.spool = spool }

    /// Registers this process as `role` until it exits or calls `end()`.
    public func register(_ role: Role) throws(SpoolError) -> Registration {
        let name = role.rawValue + "." + String(Processes.current()) + "."
            + Nonce.hex16(UInt64.random(in: .min ... .max)).prefix(8) + "." + FarmHost.local.raw
        let staged = spool.scratch.stagedRegistrationPath(name)
        do throws(Errno) {
            // Locked before it is visible: nobody may see the entry unlocked and sweep it.
            let fd = try FileDescriptor.open(staged, .readWrite, options: [.create, .exclusiveCreate],
                                             permissions: 0o600)
            do throws(Errno) {
                guard try fd.tryLock() else { throw Errno.resourceTemporarilyUnavailable }
                try FileSystem.rename(staged, spool.path(.procs, name))
            } catch {
                fd.closeQuietly()
                throw error
            }
            return Registration(fd: fd, path: spool.path(.procs, name))
        } catch {
            try? FileSystem.unlink(staged)
            throw SpoolError(.io, "cannot register this \(role.rawValue) in \(spool.procs)", cause: error)
        }
    }

    /// Whether the process registered as `name` (a `Registration.name`) is alive: its entry is there and
    /// locked. False once it died or ended its registration, and never true again for that name. An entry
    /// that cannot be looked at (out of descriptors) counts as alive: a caller acting on a death must be sure.
    public func isRegistered(_ name: String) -> Bool {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(spool.path(.procs, name), .readOnly) } catch {
            return error != .noSuchFileOrDirectory
        }
        defer { fd.closeQuietly() }
        return (try? fd.tryLock(shared: true)) != true
    }

    /// The farm processes alive now, of every host, by role, host, then pid. Entries of dead processes
    /// are removed.
    public func processes() -> [FarmProcess] {
        let scan = self.scan()
        for name in scan.foreign { spool.setAside(spool.path(.procs, name), reason: "not a process entry") }
        // Nobody held them: their processes are gone, and a registration never reuses a name.
        for name in scan.dead { try? FileSystem.unlink(spool.path(.procs, name)) }
        return scan.alive.sorted { ($0.role.rawValue, $0.host.raw, $0.pid) < ($1.role.rawValue, $1.host.raw, $1.pid) }
    }

    /// What procs/ holds, read only: the live processes, the names of entries nobody holds (their
    /// processes are gone) and the names that are no entry.
    package func scan() -> (alive: [FarmProcess], dead: [String], foreign: [String]) {
        var scan: (alive: [FarmProcess], dead: [String], foreign: [String]) = ([], [], [])
        for name in (try? FileSystem.listDirectory(spool.procs)) ?? [] {
            guard let process = Self.registrant(name) else {
                scan.foreign.append(name)
                continue
            }
            switch isHeld(spool.path(.procs, name)) {
            case true?: scan.alive.append(process)
            case false?: scan.dead.append(name)
            case nil: continue  // gone meanwhile
            }
        }
        return scan
    }

    /// What each live process of `role` on this host said last in its entry (`Registration.say`), empty
    /// when it said nothing yet.
    public func said(by role: Role) -> [(process: FarmProcess, text: String)] {
        FileSystem.names(spool.procs).compactMap { name in
            guard let process = Self.registrant(name), process.role == role, process.isLocal,
                  let fd = try? FileDescriptor.open(spool.path(.procs, name), .readOnly) else { return nil }
            defer { fd.closeQuietly() }
            guard (try? fd.tryLock(shared: true)) != true,
                  let bytes = try? FileSystem.readFile(spool.path(.procs, name), limit: 4096) else { return nil }
            return (process, String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Whether the registry entry at `path` is held by its live process; nil when it cannot be opened.
    package func isHeld(_ path: String) -> Bool? {
        guard let fd = try? FileDescriptor.open(path, .readOnly) else { return nil }
        defer { fd.closeQuietly() }
        return (try? fd.tryLock(shared: true)) != true
    }

    /// The process a registry entry's name (`<role>.<pid>.<nonce>.<host>`) names; nil when it names
    /// none. The host is the rest of the name (it may hold dots).
    package static func registrant(_ name: String) -> FarmProcess? {
        let parts = name.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let role = Role(rawValue: String(parts[0])), let pid = Int32(parts[1]),
              !parts[2].isEmpty, let host = FarmHost(raw: String(parts[3])) else { return nil }
        return FarmProcess(role: role, pid: pid, host: host)
    }
}

extension Spool {
    /// The registry of processes, `procs/`.
    public var registry: Registry { Registry(self) }
}
