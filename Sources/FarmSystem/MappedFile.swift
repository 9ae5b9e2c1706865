import Glibc
import SystemPackage

/// A file's bytes mapped read-only and private (mmap(2) `MAP_PRIVATE`, `PROT_READ`): the manifest reader
/// maps a big list from its own unlinked copy (`ScratchFile`) instead of reading it into memory. The
/// mapping goes with the last reference (munmap in `deinit`). Never written after `init`, which is what
/// makes it Sendable; any thread may read it.
///
/// Whoever maps a file must make sure it never shrinks meanwhile: a mapped page past the end of the file
/// kills the process with SIGBUS. A private copy nobody else can reach is the way.
public final class MappedFile: @unchecked Sendable {
    public let bytes: UnsafeBufferPointer<UInt8>

    /// Maps the first `count` bytes of `fd` (count > 0); the descriptor may be closed afterwards.
    public init(_ fd: FileDescriptor, count: Int) throws(Errno) {
        guard let address = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd.rawValue, 0), address != MAP_FAILED else {
            throw Errno.current
        }
        bytes = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: count)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count) }

    /// Hands back to the kernel the resident pages wholly inside `range` (madvise(2) `MADV_DONTNEED`).
    /// Reading them again is still correct: an unmodified private mapping refills from the file.
    public func release(_ range: Range<Int>) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (range.lowerBound + page - 1) / page * page
        let end = min(range.upperBound, bytes.count) / page * page
        guard end > start else { return }
        madvise(UnsafeMutableRawPointer(mutating: bytes.baseAddress! + start), end - start, MADV_DONTNEED)
    }
}

/// A temporary file that has no name: made by mkstemp(3) in a directory and unlinked at once, so it lives
/// only as long as its descriptor (and any mapping of it), and nobody else can open, change or shrink it.
/// Stateless; any thread.
public enum ScratchFile {
    /// A new empty file opened for reading and writing, close-on-exec, whose name (`<prefix>XXXXXX` in
    /// `directory`) is already gone. The caller closes it.
    public static func make(in directory: String, prefix: String) throws(Errno) -> FileDescriptor {
        var template = Array((directory + "/" + prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Errno.current }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        return FileDescriptor(rawValue: fd)
    }
}

extension FileDescriptor {
    /// The offset of the end of the file (lseek(2) `SEEK_END`), which becomes the current offset.
    public func seekToEnd() throws(Errno) -> Int {
        let offset = Glibc.lseek(rawValue, 0, SEEK_END)
        guard offset >= 0 else { throw Errno.current }
        return Int(offset)
    }
}
