import CMinizip
import FarmSystem
import Glibc
import SystemPackage

/// Writes a zip archive of regular files over minizip's zip.h: `farm demo` writes its manifest and its
/// sample archives with it. FarmFixtures adds, through `addEntry`, the entries farm never writes itself
/// (folders, symbolic links, bombs) for the tests.
///
/// It stores names exactly as given (`../evil.txt` included), so it writes archives farm makes, never
/// ones built from user input. The archive is built under a temporary name next to `path` and renamed
/// into place by `close()`; a writer dropped without `close()` removes it. Owns one minizip `zipFile`;
/// one thread at a time (not `Sendable`).
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
        self.temporaryPath = AtomicFile.temporaryName(for: path)
        guard let handle = temporaryPath.withCString({ zipOpen64($0, APPEND_STATUS_CREATE) }) else {
            throw ZipError(.io, "cannot create \(temporaryPath)", errno: errno)
        }
        self.handle = handle
    }

    deinit {
        if let handle {
            zipClose(handle, nil)
            try? FileSystem.unlink(temporaryPath)
        }
    }

    /// Adds a regular file `name` holding `bytes`.
    public func add(_ name: String, _ bytes: [UInt8], method: Method = .deflate) throws(ZipError) {
        try addEntry(name, size: bytes.count, method: method, unixMode: S_IFREG | 0o644) { write throws(ZipError) in
            try write(bytes[...])
        }
    }

    /// Finishes the archive and renames it into place. The writer cannot be used afterwards.
    public func close() throws(ZipError) {
        guard let handle else { throw ZipError(.io, "\(path) is already closed") }
        self.handle = nil
        let status = zipClose(handle, nil)
        guard status == ZIP_OK else {
            try? FileSystem.unlink(temporaryPath)
            throw ZipError(.io, "cannot finish \(path)", errno: errno, status: status)
        }
        do { try FileSystem.rename(temporaryPath, path) } catch {
            try? FileSystem.unlink(temporaryPath)
            throw ZipError(.io, "cannot put \(path) in place", errno: error.rawValue)
        }
    }

    /// Writes a whole archive of regular files in one call.
    public static func write(path: String, entries: [(name: String, bytes: [UInt8])],
                             method: Method = .deflate) throws(ZipError) {
        let writer = try ZipWriter(path: path)
        for entry in entries { try writer.add(entry.name, entry.bytes, method: method) }
        try writer.close()
    }

    /// Opens an entry of `size` bytes with the Unix mode `unixMode` (file type included) and the MS-DOS
    /// attributes `dosAttributes`, lets `body` feed its bytes through the `write` it is given, and closes
    /// the entry.
    public func addEntry(_ name: String, size: Int, method: Method, unixMode: mode_t, dosAttributes: UInt = 0,
                          body: ((ArraySlice<UInt8>) throws(ZipError) -> Void) throws(ZipError) -> Void)
        throws(ZipError) {
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
