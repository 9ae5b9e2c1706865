import FarmSystem
import SystemPackage

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
    /// The mapping `bytes` points into; nil for text kept in memory.
    private let mapping: MappedFile?

    /// `bytes` kept in memory (small lists, tests).
    init(_ bytes: [UInt8]) {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
        _ = copy.initialize(from: bytes)
        self.bytes = UnsafeBufferPointer(rebasing: copy[0..<bytes.count])
        mapping = nil
    }

    private init(mapping: MappedFile) {
        bytes = mapping.bytes
        self.mapping = mapping
    }

    /// What `write` puts into a file of its own under `scratch`, mapped. The file is unlinked at once,
    /// so it lives only as long as the mapping, and is private: nobody can change it under us (a
    /// mapped file that shrinks would kill the process with SIGBUS).
    static func spilled(in scratch: String, shownAs file: String,
                        _ write: (FileDescriptor) throws(ManifestError) -> Void) throws(ManifestError) -> ManifestText {
        let fd: FileDescriptor
        do { fd = try ScratchFile.make(in: scratch, prefix: "manifest-") } catch {
            throw scratchError(scratch, file, error)
        }
        defer { fd.closeQuietly() }
        try write(fd)
        // An offset that cannot be had reads as an empty file, as it always did.
        let count = (try? fd.seekToEnd()) ?? -1
        guard count > 0 else { return ManifestText([]) }
        do { return ManifestText(mapping: try MappedFile(fd, count: count)) } catch {
            throw scratchError(scratch, file, error)
        }
    }

    private static func scratchError(_ scratch: String, _ file: String, _ error: Errno) -> ManifestError {
        ManifestError(.unreadable, file: file, reason: "cannot spill it to \(scratch): \(error)", errno: error.rawValue)
    }

    deinit {
        if mapping == nil { UnsafeMutableBufferPointer(mutating: bytes).deallocate() }
    }

    var count: Int { bytes.count }

    /// Drops the resident pages wholly inside `range` (nothing for text kept in memory). Reading
    /// them again is still correct: an unmodified private mapping refills from the file.
    func release(_ range: Range<Int>) {
        mapping?.release(range)
    }
}
