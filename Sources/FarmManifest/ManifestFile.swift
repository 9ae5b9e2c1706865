import Glibc

/// Reading a local manifest file: its first bytes (to tell zip from JSON) and all of it, bounded.
/// Raw calls stay here. Stateless; any thread may call these.
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
        var st = stat()
        guard let scratch, stat(path, &st) == 0, st.st_size > ManifestText.mapAbove else {
            return ManifestText(try contents(path, limit: limit, shownAs: file))
        }
        if st.st_size > limit { throw tooLarge(file, limit: limit) }
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw unreadable(path, file) }
        defer { close(source) }
        return try ManifestText.spilled(in: scratch, shownAs: file) { fd throws(ManifestError) in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            var copied = 0
            while true {
                let n = Glibc.read(source, buffer.baseAddress, buffer.count)
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw unreadable(path, file) }
                if n == 0 { return }
                copied += n
                if copied > limit { throw tooLarge(file, limit: limit) }
                try writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<n]), shownAs: file)
            }
        }
    }

    /// Writes all of `bytes` to `fd` (a scratch copy).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, shownAs file: String) throws(ManifestError) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let error = n < 0 ? errno : ENOSPC
                throw ManifestError(.unreadable, file: file, reason: "cannot spill it to the scratch folder: "
                                    + String(cString: strerror(error)), errno: error)
            }
            offset += n
        }
    }

    private static func read(_ path: String, limit: Int, shownAs file: String,
                             failWhenLonger: Bool) throws(ManifestError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw unreadable(path, file) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw unreadable(path, file) }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw ManifestError(.unreadable, file: file, reason: "not a regular file (\(path))")
        }
        if failWhenLonger, st.st_size > limit { throw tooLarge(file, limit: limit) }
        // The size is a hint (the file may change while read): the limit is enforced on what arrives, and
        // one byte past it is enough to know the file is too large.
        let cap = failWhenLonger ? limit + 1 : limit
        var bytes = [UInt8](repeating: 0, count: max(1, min(Int(st.st_size) + 1, cap)))
        var filled = 0
        while true {
            if filled == bytes.count {
                guard bytes.count < cap else { break }
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, cap - bytes.count)))
            }
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw unreadable(path, file)
            }
            if n == 0 { break }
            filled += n
        }
        if failWhenLonger, filled > limit { throw tooLarge(file, limit: limit) }
        bytes.removeSubrange(filled...)
        return bytes
    }

    static func unreadable(_ path: String, _ file: String) -> ManifestError {
        let error = errno
        let reason = "cannot read \(path): " + String(cString: strerror(error))
        return ManifestError(.unreadable, file: file, reason: reason, errno: error)
    }

    static func tooLarge(_ file: String, limit: Int) -> ManifestError {
        ManifestError(.tooLarge, file: file, reason: "larger than \(limit >> 20) MiB, the most a manifest may hold")
    }
}
