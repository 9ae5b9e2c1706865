import CFarmShims
import Glibc
import SystemPackage

extension FileDescriptor {
    /// open(2), close-on-exec always: no descriptor of farm leaks into a process it starts.
    public static func open(_ path: String, _ mode: AccessMode, options: OpenOptions = [],
                            permissions: UInt32 = 0o644) throws(Errno) -> FileDescriptor {
        let fd = Glibc.open(path, mode.rawValue | options.rawValue | O_CLOEXEC, permissions)
        if fd < 0 { throw Errno.current }
        return FileDescriptor(rawValue: fd)
    }

    /// openat(2) of `name` inside the directory `self`, close-on-exec, retried on EINTR.
    public func open(_ name: String, _ mode: AccessMode, options: OpenOptions = [],
                     permissions: UInt32 = 0o644) throws(Errno) -> FileDescriptor {
        while true {
            let fd = openat(rawValue, name, mode.rawValue | options.rawValue | O_CLOEXEC, permissions)
            if fd >= 0 { return FileDescriptor(rawValue: fd) }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// mkdirat(2) of `name` inside the directory `self`.
    public func makeDirectory(_ name: String, permissions: UInt32 = 0o755) throws(Errno) {
        if mkdirat(rawValue, name, permissions) != 0 { throw Errno.current }
    }

    /// renameat(2) within the directory `self`; replaces a file already at `to`.
    public func rename(_ from: String, to: String) throws(Errno) {
        if renameat(rawValue, from, rawValue, to) != 0 { throw Errno.current }
    }

    /// unlinkat(2) of a file inside the directory `self`.
    public func unlink(_ name: String) throws(Errno) {
        if unlinkat(rawValue, name, 0) != 0 { throw Errno.current }
    }

    /// close(2), whose failure (a delayed write error) means what was written cannot be trusted.
    public func closeChecked() throws(Errno) {
        if Glibc.close(rawValue) != 0 && errno != EINTR { throw Errno.current }
    }

    /// close(2) where nothing can be done about a failure (a descriptor only read, or given up on).
    public func closeQuietly() {
        _ = Glibc.close(rawValue)
    }

    /// Reads from the current offset to the end, or until more than `limit` bytes were read (then the
    /// caller sees more than `limit` and refuses the file).
    public func readAll(limit: Int = 1 << 20) throws(Errno) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= limit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(rawValue, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno.current
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            // A regular file reads short only at its end: no second read to find it (a job file is
            // read at every claim, and fits one chunk).
            if n < chunk.count { break }
            // Longer than a chunk (a resource table, a summary): the rest in larger reads.
            if chunk.count < 1 << 18 { chunk = [UInt8](repeating: 0, count: chunk.count * 8) }
        }
        return bytes
    }

    /// Up to `buffer.count` bytes at the current offset (read(2), retried on EINTR); 0 at the end of the file.
    public func readRetrying(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        while true {
            let n = Glibc.read(rawValue, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// Up to `buffer.count` bytes at `offset` (pread(2)), without moving the file's offset; fewer at
    /// the end of the file.
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        while true {
            let n = Glibc.pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// Writes every byte of `bytes` at the current offset, however many write(2) calls that takes.
    public func write(contentsOf bytes: some Collection<UInt8>) throws(Errno) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let n = array.withUnsafeBytes { Glibc.write(rawValue, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno.current
            }
            offset += n
        }
    }

    /// Writes every byte of `bytes` at the current offset, however many write(2) calls that takes.
    public func write(contentsOf bytes: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(rawValue, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno.current
            }
            offset += n
        }
    }

    /// Writes every byte of `bytes` at `offset` (pwrite(2)); returns how many pwrite calls it took.
    @discardableResult
    public func write(contentsOf bytes: UnsafeRawBufferPointer, at offset: Int) throws(Errno) -> Int {
        var written = 0, calls = 0
        while written < bytes.count {
            calls += 1
            let n = Glibc.pwrite(rawValue, bytes.baseAddress! + written, bytes.count - written, off_t(offset + written))
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno.current
            }
            written += n
        }
        return calls
    }

    /// ftruncate(2).
    public func truncate(to size: Int) throws(Errno) {
        if ftruncate(rawValue, off_t(size)) != 0 { throw Errno.current }
    }

    /// fstat(2).
    public func status() throws(Errno) -> Stat {
        try Stat(self)
    }

    /// fsync(2).
    public func sync() throws(Errno) {
        if fsync(rawValue) != 0 { throw Errno.current }
    }

    /// fdatasync(2).
    public func syncData() throws(Errno) {
        if fdatasync(rawValue) != 0 { throw Errno.current }
    }

    /// Writes the bytes `range` of the file back to the disk and waits for them (sync_file_range(2)): not
    /// a promise that they survive a power cut (the blocks they were given are metadata, in the journal),
    /// but an order. On ext4 (data=ordered) a journal commit that holds a change made after this call
    /// also holds those blocks, written: a record of these bytes made after it never reaches the disk
    /// without them. Where the call is refused, fdatasync(2).
    public func syncData(_ range: Range<Int>) throws(Errno) {
        guard !range.isEmpty else { return }
        if cfarm_sync_range(rawValue, Int64(range.lowerBound), Int64(range.count)) == 0 { return }
        guard errno == EINVAL || errno == ESPIPE || errno == ENOSYS else { throw Errno.current }
        try syncData()
    }

    /// Takes an flock without waiting: exclusive, or shared with `shared`. False when another holder's
    /// lock is in the way.
    public func tryLock(shared: Bool = false) throws(Errno) -> Bool {
        if flock(rawValue, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0 { return true }
        if errno == EWOULDBLOCK { return false }
        throw Errno.current
    }

    /// Takes an exclusive flock, waiting for the holder to let go.
    public func lock() throws(Errno) {
        while flock(rawValue, LOCK_EX) != 0 {
            if errno != EINTR { throw Errno.current }
        }
    }

    /// A close-on-exec copy of this descriptor at `lowest` or above (F_DUPFD_CLOEXEC).
    public func duplicate(atLeast lowest: Int32) throws(Errno) -> FileDescriptor {
        let fd = fcntl(rawValue, F_DUPFD_CLOEXEC, lowest)
        if fd < 0 { throw Errno.current }
        return FileDescriptor(rawValue: fd)
    }

    /// Whether this descriptor is a terminal.
    public var isTerminal: Bool { isatty(rawValue) != 0 }

    /// The width of the terminal this descriptor is, in columns (TIOCGWINSZ); nil when it is none, or says 0.
    public var terminalColumns: Int? {
        var size = winsize()
        guard ioctl(rawValue, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The extended attribute `name` of the open file, when it has one of at most `limit` bytes.
    public func attribute(_ name: String, limit: Int = 512) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        let n = fgetxattr(rawValue, name, &buffer, buffer.count)
        guard n > 0 else { return nil }
        return Array(buffer[..<n])
    }

    public func setAttribute(_ name: String, _ value: [UInt8]) throws(Errno) {
        if fsetxattr(rawValue, name, value, value.count, 0) != 0 { throw Errno.current }
    }

    public func removeAttribute(_ name: String) throws(Errno) {
        if fremovexattr(rawValue, name) != 0 { throw Errno.current }
    }

    /// An unnamed regular file in `folder`, open for writing (O_TMPFILE): written whole, then given a
    /// name by `link(to:)`, it is never seen half-written, and a crash before leaves nothing. Throws
    /// `.notSupported` where the file system has none.
    public static func openUnnamed(in folder: String, permissions: UInt32 = 0o644) throws(Errno) -> FileDescriptor {
        let fd = cfarm_open_unnamed(folder, permissions)
        if fd < 0 { throw Errno.current }
        return FileDescriptor(rawValue: fd)
    }

    /// Gives this unnamed file (`openUnnamed`) the name `path`; `.fileExists` when it is taken.
    public func link(to path: String) throws(Errno) {
        if cfarm_link_descriptor(rawValue, path) != 0 { throw Errno.current }
    }
}
