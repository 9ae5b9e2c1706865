import FarmSystem
import SystemPackage

/// One WARC file being written: `<name>.open` in its folder until `finish` renames it to `<name>`.
///
/// Records are appended as gzip members at `end`, the length that is known good: every member before it
/// is whole and written to the disk (fdatasync). An append that fails or is cut short by a kill leaves bytes
/// past `end` only, which the next append overwrites, `abandonTail` cuts off, and `WARCRecovery` cuts off
/// after a crash (a member is good only when its CRC-32 and length check, so a torn or zeroed tail is seen).
/// The writer holds an exclusive flock on the file for its life: recovery finishes only unlocked files,
/// those whose writer is dead. Owned by one WARCWriter.
final class WARCFile {
    /// The finished name, `<prefix>-<14 digits>-<serial>-<nonce>.warc.gz`.
    let name: String
    let directory: String
    private let fd: FileDescriptor
    /// Where the next member starts; everything before it is whole and on the disk.
    private(set) var end = 0
    /// How many records the file holds, its warcinfo included.
    private(set) var records = 0

    static let openSuffix = ".open"

    var openPath: String { directory + "/" + name + Self.openSuffix }
    var finishedPath: String { directory + "/" + name }

    /// Creates `<name>.open` (refusing one already there), locks it, and makes its name durable in the folder.
    init(directory: String, name: String) throws(WARCError) {
        self.directory = directory
        self.name = name
        let path = directory + "/" + name + Self.openSuffix
        do {
            fd = try FileDescriptor.open(path, .readWrite, options: [.create, .exclusiveCreate], permissions: 0o644)
        } catch {
            throw WARCError("cannot create the WARC file \(path)", error)
        }
        do throws(Errno) {
            guard try fd.tryLock() else { throw Errno.resourceTemporarilyUnavailable }
            try FileSystem.syncDirectory(directory)
        } catch {
            fd.closeQuietly()
            try? FileSystem.unlink(path)
            throw WARCError("cannot prepare the WARC file \(path)", error)
        }
    }

    deinit { fd.closeQuietly() }

    /// Appends `records` as one gzip member each, written to the disk before it returns; returns where the
    /// first starts. On failure nothing is added: what was written past the good end is cut off, or left
    /// for the next append to overwrite when even that fails.
    func append(_ records: [PreparedRecord], with deflater: Deflater) throws(WARCError) -> Int {
        let start = end
        var at = end
        do throws(WARCError) {
            for record in records {
                try record.forEachChunk { (chunk) throws(WARCError) in
                    try deflater.feed(chunk, finish: false) { (piece) throws(WARCError) in try write(piece, at: &at) }
                }
                try deflater.feed(UnsafeRawBufferPointer(start: nil, count: 0), finish: true) { (piece) throws(WARCError) in
                    try write(piece, at: &at)
                }
            }
            // A member shorter than stale bytes after it (from an append that failed) must not leave them.
            let size: Int
            do { size = Int(try fd.status().size) } catch { throw WARCError("cannot read the size of \(openPath)", error) }
            if size > at {
                do { try fd.truncate(to: at) } catch { throw WARCError("cannot truncate \(openPath)", error) }
            }
            do { try fd.syncData() } catch { throw WARCError("cannot write \(openPath) to the disk", error) }
        } catch {
            abandonTail()
            // A deflater left mid-member would start the next member inside this one.
            deflater.reset()
            throw error
        }
        end = at
        self.records += records.count
        return start
    }

    private func write(_ piece: UnsafeRawBufferPointer, at offset: inout Int) throws(WARCError) {
        do { try fd.write(contentsOf: piece, at: offset) } catch { throw WARCError("cannot write \(openPath)", error) }
        offset += piece.count
    }

    /// Cuts off whatever lies past the good end (best effort: a reader's scan stops there anyway).
    func abandonTail() {
        try? fd.truncate(to: end)
    }

    /// Renames the file to its finished name, durably; a file that holds its warcinfo only is removed
    /// instead (it records nothing). The lock goes with the descriptor, once this object does.
    func finish() throws(WARCError) {
        do {
            if records <= 1 {
                try FileSystem.unlink(openPath)
            } else {
                try FileSystem.renameNoReplace(openPath, finishedPath, fallback: .rename)
            }
            try FileSystem.syncDirectory(directory)
        } catch {
            throw WARCError("cannot finish the WARC file \(openPath)", error)
        }
    }
}
