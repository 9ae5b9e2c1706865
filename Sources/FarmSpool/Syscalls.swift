import CFarmShims
import Glibc
import SystemPackage

/// Every raw file-system call the spool makes, each behind a typed function that throws `Errno`.
///
/// Paths are plain strings: the spool builds them from names it has validated, never from user input.
/// Stateless; any thread may call these.
enum Sys {
    static func rename(_ from: String, _ to: String) throws(Errno) {
        if Glibc.rename(from, to) != 0 { throw Errno(rawValue: errno) }
    }

    /// rename(2) that refuses to replace an existing `to` (EEXIST).
    static func renameNoReplace(_ from: String, _ to: String) throws(Errno) {
        if cfarm_rename_noreplace(AT_FDCWD, from, AT_FDCWD, to) != 0 { throw Errno(rawValue: errno) }
    }

    static func mkdir(_ path: String, mode: mode_t = 0o755) throws(Errno) {
        if Glibc.mkdir(path, mode) != 0 { throw Errno(rawValue: errno) }
    }

    /// mkdir that treats "already there" as success.
    static func ensureDirectory(_ path: String, mode: mode_t = 0o755) throws(Errno) {
        do { try mkdir(path, mode: mode) } catch where error == .fileExists { return }
    }

    static func rmdir(_ path: String) throws(Errno) {
        if Glibc.rmdir(path) != 0 { throw Errno(rawValue: errno) }
    }

    static func unlink(_ path: String) throws(Errno) {
        if Glibc.unlink(path) != 0 { throw Errno(rawValue: errno) }
    }

    /// Sets the times of `path` to now; the kernel also sets its ctime, which is what a lease reads.
    static func touch(_ path: String) throws(Errno) {
        if utimensat(AT_FDCWD, path, nil, 0) != 0 { throw Errno(rawValue: errno) }
    }

    static func lstat(_ path: String) throws(Errno) -> stat {
        var st = stat()
        if Glibc.lstat(path, &st) != 0 { throw Errno(rawValue: errno) }
        return st
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return Glibc.lstat(path, &st) == 0
    }

    /// Up to `limit` names of `path` in directory order (never "." or ".."), read with as few
    /// getdents calls as that takes: a claim never reads a whole large directory.
    static func listDirectory(_ path: String, limit: Int = .max) throws(Errno) -> [String] {
        guard let dir = opendir(path) else { throw Errno(rawValue: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while names.count < limit {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw Errno(rawValue: errno) }
                break
            }
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(Errno) -> Int32 {
        let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
        if fd < 0 { throw Errno(rawValue: errno) }
        return fd
    }

    static func readFile(_ path: String, limit: Int = 1 << 20) throws(Errno) -> [UInt8] {
        let fd = try open(path, O_RDONLY)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= limit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno(rawValue: errno)
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            // A regular file reads short only at its end: no second read to find it (a job file is
            // read at every claim, and fits one chunk).
            if n < chunk.count { break }
        }
        return bytes
    }

    static func writeAll(_ fd: Int32, _ bytes: some Collection<UInt8>) throws(Errno) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let n = array.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno(rawValue: errno)
            }
            offset += n
        }
    }

    /// Creates `path` (which must not exist) holding `bytes`; fsyncs it first when `sync` is set.
    static func createFile(_ path: String, _ bytes: some Collection<UInt8>, sync: Bool = false,
                           mode: mode_t = 0o644) throws(Errno) {
        let fd = try open(path, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
        defer { close(fd) }
        try writeAll(fd, bytes)
        if sync, fdatasync(fd) != 0 { throw Errno(rawValue: errno) }
    }

    /// One write(2) with O_APPEND: lines shorter than a page land whole even with several writers.
    static func appendLine(_ path: String, _ line: String) throws(Errno) {
        let fd = try open(path, O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
        defer { close(fd) }
        try writeAll(fd, Array((line + "\n").utf8))
    }

    /// fsync of a directory: makes the renames and creations inside it durable.
    static func syncDirectory(_ path: String) throws(Errno) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        if fsync(fd) != 0 { throw Errno(rawValue: errno) }
    }

    /// syncfs(2) on the file system holding `path`: one flush for a whole staged batch.
    static func syncFileSystem(_ path: String) throws(Errno) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        if cfarm_syncfs(fd) != 0 { throw Errno(rawValue: errno) }
    }

    /// Takes an exclusive flock on `fd` without waiting; false when another process holds it.
    static func tryLock(_ fd: Int32) throws(Errno) -> Bool {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
        if errno == EWOULDBLOCK { return false }
        throw Errno(rawValue: errno)
    }

    /// Removes `path` and everything under it, never following a symbolic link.
    static func removeTree(_ path: String) throws(Errno) {
        let st: stat
        do { st = try lstat(path) } catch where error == .noSuchFileOrDirectory { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            for name in try listDirectory(path) { try removeTree(path + "/" + name) }
            do { try rmdir(path) } catch where error == .noSuchFileOrDirectory {}
        } else {
            do { try unlink(path) } catch where error == .noSuchFileOrDirectory {}
        }
    }

    /// Sets the extended attribute `name` of `path` (not following a symbolic link) to `value`.
    static func setAttribute(_ path: String, _ name: String, _ value: [UInt8]) throws(Errno) {
        if lsetxattr(path, name, value, value.count, 0) != 0 { throw Errno(rawValue: errno) }
    }

    /// The extended attribute `name` of `path`, at most `limit` bytes; throws ENODATA when it has none.
    static func attribute(_ path: String, _ name: String, limit: Int = 1 << 16) throws(Errno) -> [UInt8] {
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
                if needed < 0 { throw Errno(rawValue: errno) }
                size = min(limit, max(needed, size * 2))
                continue
            }
            if failure != 0 { throw Errno(rawValue: failure) }
            return value
        }
    }

    static func removeAttribute(_ path: String, _ name: String) throws(Errno) {
        if lremovexattr(path, name) != 0 { throw Errno(rawValue: errno) }
    }

    /// Seconds since the machine booted (suspended time included).
    static func uptime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Wall-clock seconds since the epoch, the clock file times use.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

extension stat {
    /// ctime in seconds: set by the claim's rename and by every lease renewal, by nobody else.
    var changeTime: Double { Double(st_ctim.tv_sec) + Double(st_ctim.tv_nsec) / 1e9 }
    /// mtime in seconds: for a directory, when an entry last came or went.
    var modificationTime: Double { Double(st_mtim.tv_sec) + Double(st_mtim.tv_nsec) / 1e9 }
    var isDirectory: Bool { (st_mode & S_IFMT) == S_IFDIR }
    var isRegularFile: Bool { (st_mode & S_IFMT) == S_IFREG }
}
