import FarmSystem
import SystemPackage

/// The spool's own scratch space, tmp/: fresh names for what a process stages, named after their writer so
/// that what a process killed half-way leaves is found and removed (Sweep.swift); the whole-or-nothing writes
/// staged there; registry entries staged before their rename into procs/. A part of a `Spool`, reached as
/// `spool.scratch`. A value; any process or thread.
public struct ScratchFiles: Sendable {
    let spool: Spool
    /// `tmp/`.
    public var folder: String { spool.tmp }

    init(_ spool: Spool) { self.spool = spool }

    /// A fresh path in tmp/ for a file a process stages (`<prefix>-<pid>.<host tag>-<nonce>`), on the spool's
    /// file system. The name says whose it is, so what a process killed half-way leaves is found and removed
    /// by its host's supervisor (`sweep(ofDead:)`), by `farm stop` and by `farm fsck --repair`, on whichever
    /// host it was made.
    /// `nonce`: 16 hex digits, `Nonce`'s unless the caller may not take its lock (see RenameProbe.swift).
    public func path(_ prefix: String, nonce: String = Nonce.nextHex()) -> String {
        folder + "/" + prefix + "-" + String(Processes.current()) + "." + FarmHost.localTag + "-" + nonce
    }

    /// Writes `bytes` to `path` whole or not at all: staged in tmp/ under a scratch name (so what a writer
    /// killed half-way leaves is known for garbage once it is gone), then renamed into place. `durable`: on
    /// disk before this returns, the bytes synced before the rename and the folder of `path` after it.
    public func writeWhole(_ bytes: some Collection<UInt8>, to path: String, durable: Bool = false) throws(Errno) {
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        try AtomicFile.write(bytes, to: path, stagedAt: self.path(name), sync: durable)
        if durable { try FileSystem.syncDirectory(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])) }
    }

    /// Writes `bytes` to `path` through a temporary file in tmp/ and a rename: readers never see half of it.
    /// `durable` (the default: what a command writes is acknowledged when it exits, SPEC §17): synced before
    /// this returns.
    package func replace(_ path: String, with bytes: [UInt8], durable: Bool = true) throws(SpoolError) {
        do { try writeWhole(bytes, to: path, durable: durable) } catch {
            throw SpoolError(.io, "cannot write \(path)", cause: error)
        }
    }

    /// Temporaries whose names carry no writer's pid are left alone until this old: no writer of farm
    /// keeps one open nearly that long.
    public static let age = 60.0

    /// Who made the scratch file named `name` (see `path`); nil when `name` is not such a name.
    package static func writer(ofName name: String) -> Writer? {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts.last!.utf8.count == 16 else { return nil }
        let writer = parts[parts.count - 2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard writer.count == 2, let pid = Int32(writer[0]), pid > 0 else { return nil }
        return Writer(pid: pid, isLocal: writer[1] == FarmHost.localTag)
    }

    /// The process that made a scratch file: its pid means something only where `isLocal`.
    package struct Writer: Equatable {
        package let pid: Int32
        package let isLocal: Bool

        /// Whether it is surely gone: a process of this host that no longer exists.
        package var isGone: Bool { isLocal && !Processes.mayExist(pid) }
    }

    /// A registry entry staged in tmp/ before it is renamed into `procs/<name>` (FarmRegistry), locked first.
    package func stagedRegistrationPath(_ name: String) -> String {
        folder + "/" + Self.stagedRegistrationPrefix + name
    }
    package static let stagedRegistrationPrefix = "proc-"
}

extension Spool {
    /// The scratch space, tmp/.
    public var scratch: ScratchFiles { ScratchFiles(self) }
}
