import CMinizip
import Glibc

/// Writes a zip archive entry by entry over minizip's zip.h: fixtures for the tests, the demo's sample
/// set, the benchmark's inputs.
///
/// It writes exactly what it is told, hostile archives included (names like `../evil.txt` or `/etc/evil`,
/// symbolic-link entries, bombs), so it must never be pointed at user input. The archive is built under a
/// temporary name next to `path` and renamed into place by `close()`; a writer dropped without `close()`
/// removes it. Owns one minizip `zipFile`; one thread at a time (not `Sendable`).
public final class ZipWriter {
    /// How an entry's bytes are stored.
    public enum Method: Sendable {
        case store
        case deflate
    }

    public let path: String
    private let temporaryPath: String
    private var handle: zipFile?

    /// Starts a new archive that `close()` will put at `path` (replacing any file there).
    public init(path: String) throws(ZipError) {
        self.path = path
        self.temporaryPath = path + ".partial-" + String(getpid())
        guard let handle = temporaryPath.withCString({ zipOpen64($0, APPEND_STATUS_CREATE) }) else {
            throw ZipError(.io, "cannot create \(temporaryPath)", errno: errno)
        }
        self.handle = handle
    }

    deinit {
        if let handle {
            zipClose(handle, nil)
            unlink(temporaryPath)
        }
    }

    /// Adds a regular file `name` holding `bytes`; `mode` is its Unix permission bits.
    public func add(_ name: String, _ bytes: [UInt8], method: Method = .deflate,
                    mode: UInt32 = 0o644) throws(ZipError) {
        let unixMode = S_IFREG | (mode & 0o7777)
        try add(name, size: bytes.count, method: method, unixMode: unixMode) { write throws(ZipError) in
            try write(bytes[...])
        }
    }

    /// Adds a regular file `name` holding `count` copies of `byte`, written in chunks so a bomb of any size
    /// costs no memory: 50 MiB of zeros deflate to about 50 KiB.
    public func add(_ name: String, repeating byte: UInt8, count: Int, method: Method = .deflate) throws(ZipError) {
        let chunk = [UInt8](repeating: byte, count: min(count, 1 << 20))
        try add(name, size: count, method: method, unixMode: S_IFREG | 0o644) { write throws(ZipError) in
            var left = count
            while left > 0 {
                let n = min(left, chunk.count)
                try write(chunk[0..<n])
                left -= n
            }
        }
    }

    /// Adds a folder entry (`name` gets a trailing `/` if it has none).
    public func addDirectory(_ name: String) throws(ZipError) {
        let folder = name.hasSuffix("/") ? name : name + "/"
        // 0x10 is the MS-DOS directory attribute, which Windows tools look at instead of the Unix mode.
        try add(folder, size: 0, method: .store, unixMode: S_IFDIR | 0o755, dosAttributes: 0x10) {
            _ throws(ZipError) in
        }
    }

    /// Adds a symbolic link `name` pointing at `target`, the way Info-ZIP stores one: the target as the
    /// bytes, `S_IFLNK|0777` as the Unix mode.
    public func addSymlink(_ name: String, target: String) throws(ZipError) {
        let bytes = Array(target.utf8)
        try add(name, size: bytes.count, method: .store, unixMode: S_IFLNK | 0o777) { write throws(ZipError) in
            try write(bytes[...])
        }
    }

    /// Finishes the archive and renames it into place. The writer cannot be used afterwards.
    public func close() throws(ZipError) {
        guard let handle else { throw ZipError(.io, "\(path) is already closed") }
        self.handle = nil
        let status = zipClose(handle, nil)
        guard status == ZIP_OK else {
            unlink(temporaryPath)
            throw ZipError(.io, "cannot finish \(path)", errno: errno, status: status)
        }
        guard rename(temporaryPath, path) == 0 else {
            let error = errno
            unlink(temporaryPath)
            throw ZipError(.io, "cannot put \(path) in place", errno: error)
        }
    }

    /// Writes a whole archive of regular files in one call.
    public static func write(path: String, entries: [(name: String, bytes: [UInt8])],
                             method: Method = .deflate) throws(ZipError) {
        let writer = try ZipWriter(path: path)
        for entry in entries { try writer.add(entry.name, entry.bytes, method: method) }
        try writer.close()
    }

    /// Opens an entry, lets `body` feed its bytes through the `write` it is given, and closes the entry.
    private func add(_ name: String, size: Int, method: Method, unixMode: mode_t, dosAttributes: UInt = 0,
                     body: ((ArraySlice<UInt8>) throws(ZipError) -> Void) throws(ZipError) -> Void) throws(ZipError) {
        guard let handle else { throw ZipError(.io, "\(path) is already closed") }
        // A C string stops at the first NUL: such a name cannot be stored as given.
        guard !name.utf8.contains(0) else { throw ZipError(.unsafeEntry, "an entry name cannot hold a NUL byte") }
        var info = zip_fileinfo()
        // A fixed date keeps fixtures byte-for-byte reproducible.
        info.tmz_date = tm_zip(tm_sec: 0, tm_min: 0, tm_hour: 0, tm_mday: 1, tm_mon: 0, tm_year: 2020)
        info.external_fa = (uLong(unixMode) << 16) | dosAttributes
        // "Made by" Unix (3) so that unzip tools honour the mode; flag bit 11: names are UTF-8.
        let madeBy: uLong = (3 << 8) | 20
        let zip64: Int32 = size >= 0xFFFF_FFFF ? 1 : 0
        let status = zipOpenNewFileInZip4_64(
            handle, name, &info, nil, 0, nil, 0, nil,
            method == .deflate ? Z_DEFLATED : 0, method == .deflate ? Z_DEFAULT_COMPRESSION : 0,
            0, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, nil, 0, madeBy, 1 << 11, zip64)
        guard status == ZIP_OK else {
            throw ZipError(.io, "cannot add \(name) to \(path)", errno: errno, status: status)
        }
        try body { bytes throws(ZipError) in
            // zipWriteInFileInZip takes an unsigned length: feed it in slices.
            var start = bytes.startIndex
            while start < bytes.endIndex {
                let end = start + min(bytes.endIndex - start, 1 << 30)
                let status = bytes[start..<end].withUnsafeBytes {
                    zipWriteInFileInZip(handle, $0.baseAddress, UInt32($0.count))
                }
                guard status == ZIP_OK else {
                    throw ZipError(.io, "cannot write \(name) to \(path)", errno: errno, status: status)
                }
                start = end
            }
        }
        let closeStatus = zipCloseFileInZip(handle)
        guard closeStatus == ZIP_OK else {
            throw ZipError(.io, "cannot finish \(name) in \(path)", errno: errno, status: closeStatus)
        }
    }
}
