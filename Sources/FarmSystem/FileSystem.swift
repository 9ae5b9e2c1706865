// FarmSystem: every raw system call of farm, behind typed functions that throw swift-system's `Errno`.
//
// The other modules never call Glibc for files, descriptors, clocks or processes: they call these. Paths
// are plain strings (a String passes to C without a copy; a `FilePath` would cost an allocation per call on
// paths the claim and the completion use for every job), descriptors are swift-system's `FileDescriptor`
// (a zero-cost wrapper of the Int32), and file metadata is swift-system's `Stat`.
import CFarmShims
import Glibc
import SystemPackage

/// Path-based file-system calls. Stateless; any thread may call these.
public enum FileSystem {
    public static func rename(_ from: String, _ to: String) throws(Errno) {
        if Glibc.rename(from, to) != 0 { throw Errno.current.staleAsMissing }
    }

    /// renameat2(RENAME_EXCHANGE): `from` and `to` swap names in one step, so a directory replaces another
    /// with no moment where neither is there (rename(2) cannot replace a directory that is not empty).
    public static func exchange(_ from: String, _ to: String) throws(Errno) {
        if cfarm_rename_exchange(from, to) != 0 { throw Errno.current.staleAsMissing }
    }

    /// link(2): a second name `to` for the file at `from`; EEXIST when `to` exists, even on another host's
    /// mount of a network file system.
    public static func link(_ from: String, _ to: String) throws(Errno) {
        if Glibc.link(from, to) != 0 { throw Errno.current.staleAsMissing }
    }

    public static func mkdir(_ path: String, mode: UInt32 = 0o755) throws(Errno) {
        if Glibc.mkdir(path, mode) != 0 { throw Errno.current }
    }

    /// mkdir that treats "already there" as success.
    public static func ensureDirectory(_ path: String, mode: UInt32 = 0o755) throws(Errno) {
        do { try mkdir(path, mode: mode) } catch where error == .fileExists { return }
    }

    /// `mkdir -p`: `path` and each folder above it that is missing.
    public static func ensureDirectories(_ path: String, mode: UInt32 = 0o755) throws(Errno) {
        do { try mkdir(path, mode: mode) } catch where error == .fileExists { return } catch where
            error == .noSuchFileOrDirectory {
            guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { throw error }
            try ensureDirectories(String(path[..<slash]), mode: mode)
            try ensureDirectory(path, mode: mode)
        }
    }

    public static func rmdir(_ path: String) throws(Errno) {
        if Glibc.rmdir(path) != 0 { throw Errno.current.staleAsMissing }
    }

    public static func unlink(_ path: String) throws(Errno) {
        if Glibc.unlink(path) != 0 { throw Errno.current.staleAsMissing }
    }

    /// Unlinks `path` unless some process holds an flock on it (its writer: a partial download being
    /// written); the lock is taken for the moment of the unlink. True when it unlinked it.
    @discardableResult
    public static func unlinkUnlessLocked(_ path: String) -> Bool {
        guard let fd = try? FileDescriptor.open(path, .readOnly) else { return false }
        defer { fd.closeQuietly() }
        guard (try? fd.tryLock()) == true else { return false }
        return (try? unlink(path)) != nil
    }

    public static func chmod(_ path: String, _ mode: UInt32) throws(Errno) {
        if Glibc.chmod(path, mode) != 0 { throw Errno.current }
    }

    /// utimensat(2)'s UTIME_NOW and UTIME_OMIT, macros Swift does not import (<sys/stat.h>).
    private static let utimeNow = (1 << 30) - 1, utimeOmit = (1 << 30) - 2

    /// Sets the atime of `path` to now and leaves its mtime; the kernel also sets its ctime, which is
    /// what a lease reads.
    public static func touch(_ path: String) throws(Errno) {
        var times = [timespec(tv_sec: 0, tv_nsec: utimeNow), timespec(tv_sec: 0, tv_nsec: utimeOmit)]
        if utimensat(AT_FDCWD, path, &times, 0) != 0 { throw Errno.current }
    }

    /// lstat(2): the entry itself, a symbolic link not followed.
    public static func lstat(_ path: String) throws(Errno) -> Stat {
        try Stat(path, followTargetSymlink: false)
    }

    /// stat(2): what the path leads to, symbolic links followed.
    public static func stat(_ path: String) throws(Errno) -> Stat {
        try Stat(path, followTargetSymlink: true)
    }

    public static func exists(_ path: String) -> Bool {
        var st = Glibc.stat()
        return Glibc.lstat(path, &st) == 0
    }

    /// The absolute path of `path` with every symbolic link, `.` and `..` resolved.
    public static func realPath(_ path: String) throws(Errno) -> String {
        guard let resolved = realpath(path, nil) else { throw Errno.current }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// symlink(2): a symbolic link at `path` whose text is `target`. It appears whole or not at all, so a
    /// short record written this way needs no temporary name, and reads back in one readlink(2).
    public static func symlink(_ target: String, at path: String) throws(Errno) {
        if Glibc.symlink(target, path) != 0 { throw Errno.current }
    }

    /// Where the symbolic link `path` points.
    public static func readLink(_ path: String) throws(Errno) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        if count < 0 { throw Errno.current }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bytes of the file at `path`, at most `limit` (and one chunk more: a caller that must refuse a
    /// larger file compares the count with its limit).
    public static func readFile(_ path: String, limit: Int = 1 << 20) throws(Errno) -> [UInt8] {
        do {
            let fd = try FileDescriptor.open(path, .readOnly)
            defer { fd.closeQuietly() }
            return try fd.readAll(limit: limit)
        } catch {
            throw error.staleAsMissing
        }
    }

    /// Creates `path` (which must not exist) holding `bytes`; fsyncs it first when `sync` is set.
    public static func createFile(_ path: String, _ bytes: some Collection<UInt8>, sync: Bool = false,
                                  mode: UInt32 = 0o644) throws(Errno) {
        let fd = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate], permissions: mode)
        defer { fd.closeQuietly() }
        try fd.write(contentsOf: bytes)
        if sync { try fd.syncData() }
    }

    /// An empty file made by one mknod(2) rather than an open, a write and a close: what `farm add` makes of
    /// each job file (whose record is its list's table line). EEXIST when `path` exists. A file system that
    /// refuses mknod for a regular file gets the open and close.
    public static func createEmptyFile(_ path: String, mode: UInt32 = 0o644) throws(Errno) {
        if Glibc.mknod(path, S_IFREG | mode, 0) == 0 { return }
        let error = Errno.current
        guard [.notPermitted, .notSupported, .notSupportedOnSocket, .noFunction].contains(error) else { throw error }
        try createFile(path, [UInt8](), mode: mode)
    }

    /// One write(2) with O_APPEND: lines shorter than a page land whole even with several writers.
    public static func appendLine(_ path: String, _ line: String) throws(Errno) {
        let fd = try FileDescriptor.open(path, .writeOnly, options: [.create, .append], permissions: 0o600)
        defer { fd.closeQuietly() }
        try fd.write(contentsOf: Array((line + "\n").utf8))
    }

    /// fsync of a directory: makes the renames and creations inside it durable.
    public static func syncDirectory(_ path: String) throws(Errno) {
        let fd = try FileDescriptor.open(path, .readOnly, options: .directory)
        defer { fd.closeQuietly() }
        try fd.sync()
    }

    /// syncfs(2) on the file system holding `path`: one flush for a whole staged batch.
    public static func syncFileSystem(_ path: String) throws(Errno) {
        let fd = try FileDescriptor.open(path, .readOnly, options: .directory)
        defer { fd.closeQuietly() }
        if cfarm_syncfs(fd.rawValue) != 0 { throw Errno.current }
    }

    /// Where the bytes the disk holds of the file at `path` stop, from `offset` on: the first hole at or
    /// after it (lseek's SEEK_HOLE), the file's end when there is none, `offset` when it is at or past the
    /// end. After a power cut, a hole is where the disk kept a file's size but not bytes written before
    /// it (ext4 allocates a file's blocks as it writes them back, not in the order they were written); a
    /// file system that knows no holes says the file's end.
    public static func dataEnd(_ path: String, from offset: Int = 0) throws(Errno) -> Int {
        let fd = try FileDescriptor.open(path, .readOnly)
        defer { fd.closeQuietly() }
        let end = cfarm_seek_hole(fd.rawValue, Int64(offset))
        if end >= 0 { return Int(end) }
        if errno == ENXIO { return offset }
        throw Errno.current
    }

    /// Removes `path` and everything under it, never following a symbolic link.
    public static func removeTree(_ path: String) throws(Errno) {
        let st: Stat
        do { st = try lstat(path) } catch where error == .noSuchFileOrDirectory { return }
        if st.type == .directory {
            for name in try listDirectory(path) { try removeTree(path + "/" + name) }
            do { try rmdir(path) } catch where error == .noSuchFileOrDirectory {}
        } else {
            do { try unlink(path) } catch where error == .noSuchFileOrDirectory {}
        }
    }

    /// Sets the extended attribute `name` of `path` (not following a symbolic link) to `value`.
    public static func setAttribute(_ path: String, _ name: String, _ value: [UInt8]) throws(Errno) {
        if lsetxattr(path, name, value, value.count, 0) != 0 { throw Errno.current }
    }

    /// The extended attribute `name` of `path`, at most `limit` bytes; throws ENODATA when it has none.
    public static func attribute(_ path: String, _ name: String, limit: Int = 1 << 16) throws(Errno) -> [UInt8] {
        var size = 4096
        while true {
            var failure: Int32 = 0
            let value = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                let n = lgetxattr(path, name, buffer.baseAddress, buffer.count)
                count = max(n, 0)
                if n < 0 { failure = errno }
            }
            // Grown since asked, or longer than a first guess: ask its size, then read it again.
            if failure == ERANGE, size < limit {
                let needed = lgetxattr(path, name, nil, 0)
                if needed < 0 { throw Errno.current }
                size = min(limit, max(needed, size * 2))
                continue
            }
            if failure != 0 { throw Errno(rawValue: failure) }
            return value
        }
    }

    public static func removeAttribute(_ path: String, _ name: String) throws(Errno) {
        if lremovexattr(path, name) != 0 { throw Errno.current }
    }
}

extension Errno {
    /// The calling thread's errno, as left by the system call that just failed.
    static var current: Errno { Errno(rawValue: errno) }

    /// ESTALE as ENOENT. On a network file system (GlusterFS, NFS) a folder or file that another host
    /// removed can answer "stale file handle" instead of "no such file": to the listings, reads, renames
    /// and removals of farm both mean that it is gone. Not applied to stat: a spool root that answers
    /// ESTALE is not known to be gone (see `Spool.isGone`).
    var staleAsMissing: Errno { self == .staleNFSFileHandle ? .noSuchFileOrDirectory : self }
}

extension Stat {
    /// ctime in seconds: of a claimed job file, set by its claim, by every renewal of its lease and by
    /// the records its owner sets on it.
    public var changeTime: Double { Self.seconds(st_ctim) }
    /// mtime in seconds: for a directory, when an entry last came or went; for a claimed job file, when
    /// it was claimed.
    public var modificationTime: Double { Self.seconds(st_mtim) }

    public var isDirectory: Bool { type == .directory }
    public var isRegularFile: Bool { type == .regular }

    /// A file time in seconds, as every reader of one computes it.
    static func seconds(_ time: timespec) -> Double { Double(time.tv_sec) + Double(time.tv_nsec) / 1e9 }
}

extension FileSystem {
    /// The first `count` bytes of the file at `path` (fewer when it is shorter): one open and one read.
    public static func readPrefix(_ path: String, count: Int) throws(Errno) -> [UInt8] {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .readOnly) } catch { throw error.staleAsMissing }
        defer { fd.closeQuietly() }
        var failure: Errno?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(Errno) { initialized = try fd.read(at: 0, into: UnsafeMutableRawBufferPointer(buffer)) } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure.staleAsMissing }
        return bytes
    }
}

extension FileSystem {
    /// access(2) for reading: throws why this process may not read `path`.
    public static func checkReadable(_ path: String) throws(Errno) {
        if access(path, R_OK) != 0 { throw Errno.current }
    }
}

extension FileSystem {
    /// Whether `path` is a regular file this process may execute (access(2) with X_OK, and a stat).
    public static func isExecutableFile(_ path: String) -> Bool {
        access(path, X_OK) == 0 && ((try? stat(path))?.isRegularFile ?? false)
    }
}
