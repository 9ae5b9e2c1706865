import FarmSystem
import SystemPackage

/// Reading a local manifest file: its first bytes (to tell zip from JSON) and all of it, bounded,
/// through FarmSystem's calls. Stateless; any thread may call these.
enum ManifestFile {
    /// Up to `count` bytes from the start of `path`; fewer when the file is shorter.
    static func head(_ path: String, count: Int, shownAs file: String) throws(ManifestError) -> [UInt8] {
        try read(path, limit: count, shownAs: file, failWhenLonger: false)
    }

    /// All of `path`, refused with `.tooLarge` beyond `limit` bytes.
    static func contents(_ path: String, limit: Int, shownAs file: String) throws(ManifestError) -> [UInt8] {
        try read(path, limit: limit, shownAs: file, failWhenLonger: true)
    }

    /// All of `path` as a list's text: mapped from a private copy under `scratch` when it is big,
    /// else read into memory. Refused with `.tooLarge` beyond `limit` bytes.
    static func text(_ path: String, limit: Int, shownAs file: String, scratch: String?) throws(ManifestError)
        -> ManifestText {
        guard let scratch, let st = try? FileSystem.stat(path), st.size > ManifestText.mapAbove else {
            return ManifestText(try contents(path, limit: limit, shownAs: file))
        }
        if st.size > limit { throw tooLarge(file, limit: limit) }
        let source: FileDescriptor
        do { source = try FileDescriptor.open(path, .readOnly) } catch { throw unreadable(path, file, error) }
        defer { source.closeQuietly() }
        return try ManifestText.spilled(in: scratch, shownAs: file) { fd throws(ManifestError) in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            var copied = 0
            while true {
                let n: Int
                do throws(Errno) { n = try source.readRetrying(into: buffer) } catch {
                    throw unreadable(path, file, error)
                }
                if n == 0 { return }
                copied += n
                if copied > limit { throw tooLarge(file, limit: limit) }
                try writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<n]), shownAs: file)
            }
        }
    }

    /// Writes all of `bytes` to `fd` (a scratch copy).
    static func writeAll(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, shownAs file: String)
        throws(ManifestError) {
        do { try fd.write(contentsOf: bytes) } catch {
            throw ManifestError(.unreadable, file: file, reason: "cannot spill it to the scratch folder: \(error)",
                                errno: error.rawValue)
        }
    }

    private static func read(_ path: String, limit: Int, shownAs file: String,
                             failWhenLonger: Bool) throws(ManifestError) -> [UInt8] {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .readOnly) } catch { throw unreadable(path, file, error) }
        defer { fd.closeQuietly() }
        let st: Stat
        do { st = try fd.status() } catch { throw unreadable(path, file, error) }
        guard st.type == .regular else {
            throw ManifestError(.unreadable, file: file, reason: "not a regular file (\(path))")
        }
        if failWhenLonger, st.size > limit { throw tooLarge(file, limit: limit) }
        // The size is a hint (the file may change while read): the limit is enforced on what arrives, and
        // one byte past it is enough to know the file is too large.
        let cap = failWhenLonger ? limit + 1 : limit
        var bytes = [UInt8](repeating: 0, count: max(1, min(Int(st.size) + 1, cap)))
        var filled = 0
        while true {
            if filled == bytes.count {
                guard bytes.count < cap else { break }
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, cap - bytes.count)))
            }
            let read = bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in
                    try fd.readRetrying(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                }
            }
            let n: Int
            do { n = try read.get() } catch { throw unreadable(path, file, error) }
            if n == 0 { break }
            filled += n
        }
        if failWhenLonger, filled > limit { throw tooLarge(file, limit: limit) }
        bytes.removeSubrange(filled...)
        return bytes
    }

    static func unreadable(_ path: String, _ file: String, _ error: Errno) -> ManifestError {
        ManifestError(.unreadable, file: file, reason: "cannot read \(path): \(error)", errno: error.rawValue)
    }

    static func tooLarge(_ file: String, limit: Int) -> ManifestError {
        ManifestError(.tooLarge, file: file, reason: "larger than \(limit >> 20) MiB, the most a manifest may hold")
    }
}
