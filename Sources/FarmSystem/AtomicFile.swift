import Glibc
import SystemPackage

/// Files that appear whole or not at all: written under a temporary name, then renamed into place, so a
/// reader sees the old file or the new one, never half of one. The one write-temp-then-rename of farm,
/// and the one place that names its temporaries.
///
/// A temporary beside its file is `<name>.tmp-<pid>`, with the pid of its writer: a writer killed
/// half-way leaves one behind, which `isTemporary` recognises (the spool's sweep removes them once every
/// farm process is gone). A temporary staged elsewhere (the spool's tmp/) is named by the caller, whose
/// name says its writer (`Spool.scratchPath`), so a sweep knows it for garbage once that writer is gone.
/// Nothing is fsynced unless the caller asks (`sync`). Stateless; any thread.
public enum AtomicFile {
    /// The temporary name of `name` (a file name, or a path) for this process: `<name>.tmp-<pid>`.
    public static func temporaryName(for name: String) -> String {
        name + ".tmp-" + String(getpid())
    }

    /// Whether `name` is a temporary named by `temporaryName(for:)`, of any process.
    public static func isTemporary(_ name: String) -> Bool {
        guard let dash = name.lastIndex(of: "-") else { return false }
        let pid = name[name.index(after: dash)...]
        return name[..<dash].hasSuffix(".tmp") && !pid.isEmpty && pid.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    /// The pid of the writer of the temporary `name` (see `isTemporary`); nil when `name` is none, or its
    /// number is no pid.
    public static func writer(ofTemporary name: String) -> Int32? {
        guard isTemporary(name), let dash = name.lastIndex(of: "-"), let pid = Int32(name[name.index(after: dash)...]),
              pid > 0 else { return nil }
        return pid
    }

    /// Writes `bytes` to `path` through the temporary file `staged` (a fresh name on the same file system,
    /// created exclusively), or beside `path` when there is none, and a rename. With `sync`, the bytes are on
    /// disk before the rename (fdatasync): a power cut after it leaves the new file whole, never empty.
    public static func write(_ bytes: some Collection<UInt8>, to path: String, stagedAt staged: String? = nil,
                             sync: Bool = false) throws(Errno) {
        let temporary: String
        let options: FileDescriptor.OpenOptions
        if let staged {
            temporary = staged
            options = [.create, .exclusiveCreate]
        } else {
            // A dead writer's temporary may carry our pid: taken over, not refused.
            temporary = temporaryName(for: path)
            options = [.create, .truncate]
        }
        do {
            let fd = try FileDescriptor.open(temporary, .writeOnly, options: options)
            defer { fd.closeQuietly() }
            try fd.write(contentsOf: bytes)
            if sync { try fd.syncData() }
            try FileSystem.rename(temporary, path)
        } catch {
            try? FileSystem.unlink(temporary)
            throw error
        }
    }

    /// Calls `write` with a temporary path beside `path` (for writers that want a path: an image encoder),
    /// then renames it to `path`. A failure of either removes the temporary; a failed rename is
    /// reported through `renameFailed`.
    public static func replace<Failure: Error>(_ path: String, by write: (String) throws(Failure) -> Void,
                                               renameFailed: (Errno) -> Failure) throws(Failure) {
        let temporary = temporaryName(for: path)
        do {
            try write(temporary)
        } catch {
            try? FileSystem.unlink(temporary)
            throw error
        }
        do { try FileSystem.rename(temporary, path) } catch {
            try? FileSystem.unlink(temporary)
            throw renameFailed(error)
        }
    }
}
