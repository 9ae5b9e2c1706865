import FarmSystem
import Synchronization

extension Spool {
    /// Whether this process has tried the flag on a shared file system (see `learnRenames`).
    private static let renamesLearnt = Atomic<Bool>(false)

    /// Finds out, once per process and before its first claim or completion, whether the spool's file
    /// system refuses RENAME_NOREPLACE: where statfs says other hosts share it (FUSE, NFS), by trying it
    /// on a scratch file in tmp/ (a refusal is then remembered: see FarmSystem's NoReplace.swift). A
    /// process must know it from the start: without the flag a claim takes a step of its own (see the
    /// protocol), and a completion must look before it records its outcome. Local file systems take the
    /// flag and cost one statfs. The scratch names are fresh and not from `Nonce`, whose lock a process
    /// that makes copies may not take (`farm start` opens a spool too).
    func learnRenames() {
        guard !FileSystem.refusesNoReplace, FileSystem.isShared(root),
              !Self.renamesLearnt.exchange(true, ordering: .relaxed) else { return }
        let from = scratch.path("noreplace", nonce: Nonce.hex16(UInt64.random(in: .min ... .max)))
        let to = scratch.path("noreplace", nonce: Nonce.hex16(UInt64.random(in: .min ... .max)))
        guard (try? FileSystem.createFile(from, [])) != nil else { return }
        _ = try? FileSystem.renameNoReplace(from, to, fallback: .rename)
        try? FileSystem.unlink(from)
        try? FileSystem.unlink(to)
    }
}
