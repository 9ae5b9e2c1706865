import CFarmShims
import Glibc
import Synchronization
import SystemPackage

// Renames that must not replace what is at their destination, on every file system.
//
// renameat2(RENAME_NOREPLACE) moves a file in one atomic step and refuses (EEXIST) to replace one that
// is already there. FUSE (so GlusterFS), NFS and other network file systems refuse the flag itself, with
// EINVAL. There the caller says which other step keeps its guarantee (`NoReplaceFallback`): link(2) then
// unlink(2), which is exclusive across hosts but leaves the file with two names for a moment, or a plain
// rename(2), atomic but replacing. Which file system refuses is learnt from the first refusal and kept
// for the process, so such a file system costs one refused call per process, not one per rename (a
// spool on a shared file system tries it as it opens: FarmSpool's RenameProbe.swift).
extension FileSystem {
    /// What `renameNoReplace` does where the file system refuses RENAME_NOREPLACE.
    public enum NoReplaceFallback: Sendable {
        /// link(2) `to` to `from`: `to` is created exclusively as with the flag (EEXIST when it exists, on
        /// any host's mount; ENOENT when `from` is gone), for files only. The caller then unlinks `from`
        /// (see `NoReplaceOutcome.linked`); until it does, the file has both names, and another process
        /// may move `from` away meanwhile.
        case link
        /// A plain rename(2): one atomic step, no moment with two names, but it replaces what is at `to`.
        /// For a `to` no other process can be making (a name holding a nonce of the caller's), or one that
        /// could only hold another name of the same thing. Directories too.
        case rename
    }

    /// Set once this process found RENAME_NOREPLACE refused (EINVAL): from then on it is not asked for.
    /// FARM_FS_NO_NOREPLACE=1 in the environment sets it from the start, for tests and diagnosis only:
    /// the fallbacks then run on a local disk as they do on FUSE.
    private static let noReplaceRefused = Atomic<Bool>(
        getenv("FARM_FS_NO_NOREPLACE").map { String(cString: $0) } == "1")

    /// Whether this process renames without RENAME_NOREPLACE (its file system refused it, or
    /// FARM_FS_NO_NOREPLACE=1): the fallbacks are in use, and the spool takes the steps they need.
    public static var refusesNoReplace: Bool { noReplaceRefused.load(ordering: .relaxed) }

    /// What `renameNoReplace` did.
    public enum NoReplaceOutcome: Sendable {
        /// `from` is now `to`.
        case renamed
        /// `to` is a second name of the file at `from` (the `.link` fallback): the caller unlinks `from`.
        case linked
    }

    /// rename(2) that refuses to replace an existing `to` (EEXIST); where the file system refuses that,
    /// `fallback` (see `NoReplaceFallback`).
    @discardableResult
    public static func renameNoReplace(_ from: String, _ to: String, fallback: NoReplaceFallback) throws(Errno)
        -> NoReplaceOutcome {
        if !refusesNoReplace {
            if cfarm_rename_noreplace(AT_FDCWD, from, AT_FDCWD, to) == 0 { return .renamed }
            let error = Errno.current
            guard error == .invalidArgument else { throw error.staleAsMissing }
            noReplaceRefused.store(true, ordering: .relaxed)
        }
        switch fallback {
        case .link:
            try link(from, to)
            return .linked
        case .rename:
            try renameDroppingSameFile(from, to)
            return .renamed
        }
    }

    /// rename(2), which does nothing when `from` and `to` are two names of one file (POSIX): then `from`
    /// is unlinked, so the move happens all the same.
    private static func renameDroppingSameFile(_ from: String, _ to: String) throws(Errno) {
        try rename(from, to)
        guard let left = try? lstat(from), let target = try? lstat(to),
              left.deviceID == target.deviceID, left.inode == target.inode else { return }
        do { try unlink(from) } catch where error == .noSuchFileOrDirectory {}
    }
}
