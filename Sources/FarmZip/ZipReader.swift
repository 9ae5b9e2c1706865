import CMinizip
import FarmSystem
import Glibc

/// An open zip archive, read safely: entry names are built from their declared length, sizes and ratios
/// are bounded by `ZipLimits` while the bytes come out, and every CRC is checked.
///
/// Owns one minizip `unzFile`, closed in `deinit`. minizip keeps a cursor in the handle, so a reader is
/// used by one thread at a time (it is not `Sendable`); open one reader per thread instead.
public final class ZipReader {
    public let path: String
    /// Bytes produced by every successful `read` and `extract` of this reader so far: what
    /// `ZipLimits.maxTotalBytes` bounds.
    public private(set) var bytesProduced: Int64 = 0
    /// nil for an empty archive, which minizip cannot open (see `EmptyArchive`).
    private let handle: unzFile?

    /// Opens the archive at `path`. Throws `.io` when the file cannot be opened, `.corrupt` when it is not
    /// a zip (garbage, truncated, no end-of-central-directory record).
    public init(path: String) throws(ZipError) {
        let isRegularFile: Bool
        do { isRegularFile = try FileSystem.stat(path).isRegularFile } catch {
            throw ZipError(.io, "cannot open \(path)", errno: error.rawValue)
        }
        guard isRegularFile else { throw ZipError(.corrupt, "corrupt zip: not a regular file") }
        do { try FileSystem.checkReadable(path) } catch {
            throw ZipError(.io, "cannot open \(path)", errno: error.rawValue)
        }
        let handle = path.withCString { unzOpen64($0) }
        guard handle != nil || EmptyArchive.isEmptyArchive(path) else {
            throw ZipError(.corrupt, "corrupt zip: not a zip archive, or truncated")
        }
        self.path = path
        self.handle = handle
    }

    deinit {
        if let handle { unzClose(handle) }
    }

    /// Every entry, in central-directory order. Throws `.limitExceeded` past `limits.maxEntries` (counted,
    /// not only declared) and `.corrupt` when the directory is damaged.
    public func entries(limits: ZipLimits = .default) throws(ZipError) -> [ZipEntry] {
        guard let handle else { return [] }
        var global = unz_global_info64()
        let infoStatus = unzGetGlobalInfo64(handle, &global)
        guard infoStatus == UNZ_OK else {
            throw ZipError(.corrupt, "corrupt zip: unreadable directory", status: infoStatus)
        }
        if global.number_entry > UInt64(limits.maxEntries) { throw tooManyEntries(limits) }

        var entries: [ZipEntry] = []
        var status = unzGoToFirstFile(handle)
        // The name field is 2 bytes long: 64 KiB always holds it.
        var nameBuffer = [CChar](repeating: 0, count: 1 << 16)
        while status == UNZ_OK {
            if entries.count >= limits.maxEntries { throw tooManyEntries(limits) }
            var info = unz_file_info64()
            let infoStatus = unzGetCurrentFileInfo64(handle, &info, &nameBuffer, uLong(nameBuffer.count),
                                                     nil, 0, nil, 0)
            guard infoStatus == UNZ_OK else {
                throw ZipError(.corrupt, "corrupt zip: damaged entry \(entries.count)", status: infoStatus)
            }
            // The buffer is NUL-terminated only when there was room: trust the declared length instead.
            let length = min(Int(info.size_filename), nameBuffer.count)
            let name = nameBuffer.withUnsafeBytes { String(decoding: $0.prefix(length), as: UTF8.self) }
            var position = unz64_file_pos()
            let positionStatus = unzGetFilePos64(handle, &position)
            guard positionStatus == UNZ_OK else {
                throw ZipError(.corrupt, "corrupt zip: damaged entry \(entries.count)", status: positionStatus)
            }
            entries.append(ZipEntry(name: name, index: entries.count, info: info, position: position))
            status = unzGoToNextFile(handle)
        }
        guard status == UNZ_END_OF_LIST_OF_FILE else {
            throw ZipError(.corrupt, "corrupt zip: damaged directory after entry \(entries.count)", status: status)
        }
        return entries
    }

    /// The expanded bytes of `entry`, at most `limit` of them: a larger entry throws `.limitExceeded`
    /// (it is never silently cut short).
    public func read(_ entry: ZipEntry, limit: Int) throws(ZipError) -> [UInt8] {
        try read(entry, limits: .entry(Int64(limit)))
    }

    /// The expanded bytes of `entry`, within `limits` (per entry, ratio, and this reader's running total).
    public func read(_ entry: ZipEntry, limits: ZipLimits) throws(ZipError) -> [UInt8] {
        var bytes: [UInt8] = []
        // Reserve from the declared size, but not much of it: it may lie.
        bytes.reserveCapacity(Int(min(entry.uncompressedSize, UInt64(max(0, min(limits.maxEntryBytes, 64 << 20))))))
        try stream(entry, limits: limits) { chunk throws(ZipError) in bytes.append(contentsOf: chunk) }
        return bytes
    }

    /// Expands `entry` chunk by chunk into `sink`. The bounds are checked before each chunk is handed over,
    /// so `sink` never receives a byte beyond them; a failure after some chunks means the caller must drop
    /// what it received. Only a complete, CRC-checked entry counts towards `bytesProduced`.
    public func stream(_ entry: ZipEntry, limits: ZipLimits,
                into sink: (UnsafeRawBufferPointer) throws(ZipError) -> Void) throws(ZipError) {
        let name = entry.printableName
        if entry.isEncrypted { throw ZipError(.unsupported, "\(name) is encrypted") }
        guard entry.method == 0 || entry.method == Int(Z_DEFLATED) else {
            throw ZipError(.unsupported, "\(name) uses compression method \(entry.method) (only store and deflate)")
        }
        let entryCap = min(limits.maxEntryBytes, limits.ratioCap(compressed: entry.compressedSize))
        let remaining = limits.maxTotalBytes == .max ? .max : max(0, limits.maxTotalBytes - bytesProduced)
        // Refuse what the archive admits to before expanding anything.
        if entry.uncompressedSize > UInt64(max(0, entryCap)) { throw bomb(entry, limits: limits, beyond: entryCap) }
        if entry.uncompressedSize > UInt64(max(0, remaining)) { throw totalExceeded(limits) }

        guard let handle else { throw ZipError(.corrupt, "corrupt zip: cannot find \(name)") }
        var position = entry.position
        let seekStatus = unzGoToFilePos64(handle, &position)
        guard seekStatus == UNZ_OK else {
            throw ZipError(.corrupt, "corrupt zip: cannot find \(name)", status: seekStatus)
        }
        let openStatus = unzOpenCurrentFile(handle)
        guard openStatus == UNZ_OK else {
            throw ZipError(.corrupt, "corrupt zip: cannot open \(name)", status: openStatus)
        }
        var isOpen = true
        defer { if isOpen { unzCloseCurrentFile(handle) } }

        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { buffer.deallocate() }
        var produced: Int64 = 0
        while true {
            let n = unzReadCurrentFile(handle, buffer.baseAddress, UInt32(buffer.count))
            if n == 0 { break }
            if n < 0 {
                if n == UNZ_ERRNO {
                    throw ZipError(.io, "cannot read \(name) from the archive", errno: errno, status: n)
                }
                throw ZipError(.corrupt, "corrupt zip: damaged data in \(name)", status: n)
            }
            produced += Int64(n)
            // Declared sizes can lie: the real count decides.
            if produced > entryCap { throw bomb(entry, limits: limits, beyond: entryCap) }
            if produced > remaining { throw totalExceeded(limits) }
            try sink(UnsafeRawBufferPointer(rebasing: buffer[0..<Int(n)]))
        }
        isOpen = false
        let closeStatus = unzCloseCurrentFile(handle)
        if closeStatus == UNZ_CRCERROR { throw ZipError(.crcMismatch, "CRC error in \(name)", status: closeStatus) }
        guard closeStatus == UNZ_OK else {
            throw ZipError(.corrupt, "corrupt zip: damaged data in \(name)", status: closeStatus)
        }
        // minizip checks the CRC only when it got every declared byte: a short entry must be caught here.
        guard UInt64(produced) == entry.uncompressedSize else {
            throw ZipError(.corrupt,
                           "corrupt zip: \(name) holds \(produced) bytes, not the \(entry.uncompressedSize) declared")
        }
        bytesProduced += produced
    }

    private func tooManyEntries(_ limits: ZipLimits) -> ZipError {
        ZipError(.limitExceeded, "zip bomb: more than \(limits.maxEntries) entries")
    }

    private func bomb(_ entry: ZipEntry, limits: ZipLimits, beyond cap: Int64) -> ZipError {
        if cap < limits.maxEntryBytes {
            return ZipError(.limitExceeded, "zip bomb: entry \(entry.printableName) expands more than "
                + "\(limits.maxRatio) times its compressed size")
        }
        return ZipError(.limitExceeded,
                        "zip bomb: entry \(entry.printableName) expands beyond \(ByteCount.describe(cap))")
    }

    private func totalExceeded(_ limits: ZipLimits) -> ZipError {
        ZipError(.limitExceeded,
                 "zip bomb: the entries expand beyond \(ByteCount.describe(limits.maxTotalBytes)) in all")
    }
}
