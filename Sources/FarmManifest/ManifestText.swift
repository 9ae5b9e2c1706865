import Glibc

/// The text of one JSON list, where the resources' spans point. A big list is mapped from a file
/// rather than read into memory, and its pages are handed back to the kernel once read
/// (`release`): they are read again from the page cache if a span needs them later, so a
/// million-URL list never has to be resident at once.
///
/// Immutable once made (a read-only mapping or a private copy, never written after `init`), which is
/// what makes it Sendable; any thread may read it. The memory goes with the last reference.
final class ManifestText: @unchecked Sendable {
    /// Lists bigger than this are mapped from a file when there is a scratch folder to put one in.
    static let mapAbove = 8 << 20

    let bytes: UnsafeBufferPointer<UInt8>
    private let mapped: Bool

    /// `bytes` kept in memory (small lists, tests).
    init(_ bytes: [UInt8]) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
        _ = copy.initialize(from: bytes)
        self.bytes = UnsafeBufferPointer(rebasing: copy[0..<bytes.count])
        mapped = false
    }

    private init(mapping address: UnsafeMutableRawPointer, count: Int) {
        bytes = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: count)
        mapped = true
    }

    /// What `write` puts into a file of its own under `scratch`, mapped. The file is unlinked at once,
    /// so it lives only as long as the mapping, and is private: nobody can change it under us (a
    /// mapped file that shrinks would kill the process with SIGBUS).
    static func spilled(in scratch: String, shownAs file: String,
                        _ write: (Int32) throws(ManifestError) -> Void) throws(ManifestError) -> ManifestText {
        var template = Array((scratch + "/manifest-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw scratchError(scratch, file) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        unlink(String(cString: template))
        defer { close(fd) }
        try write(fd)
        let count = Int(lseek(fd, 0, SEEK_END))
        guard count > 0 else { return ManifestText([]) }
        guard let address = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED else {
            throw scratchError(scratch, file)
        }
        return ManifestText(mapping: address, count: count)
    }

    private static func scratchError(_ scratch: String, _ file: String) -> ManifestError {
        let error = errno
        return ManifestError(.unreadable, file: file,
                             reason: "cannot spill it to \(scratch): \(String(cString: strerror(error)))", errno: error)
    }

    deinit {
        if mapped {
            munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
        } else {
            UnsafeMutableBufferPointer(mutating: bytes).deallocate()
        }
    }

    var count: Int { bytes.count }

    /// Drops the resident pages wholly inside `range` (nothing for text kept in memory). Reading
    /// them again is still correct: an unmodified private mapping refills from the file.
    func release(_ range: Range<Int>) {
        guard mapped else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (range.lowerBound + page - 1) / page * page
        let end = min(range.upperBound, bytes.count) / page * page
        guard end > start else { return }
        madvise(UnsafeMutableRawPointer(mutating: bytes.baseAddress! + start), end - start, MADV_DONTNEED)
    }
}
