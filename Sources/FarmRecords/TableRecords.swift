import FarmJSON
import FarmSystem
import SystemPackage

/// The records of jobs claimed from an add's batch, read from their lists' resource tables instead of
/// their job files: a claim is then its rename alone, with no open, read and close of the file it renamed.
///
/// Why it is the job's record: `farm add` writes it to line N of its list's table alone (its job file is
/// empty), and so does an edit's new resource (`farm item add`, `farm sync`; `Spool.jobRecord(atPath:)` reads
/// its empty file so), a page of a paged list to its job file and its table line from the same bytes, and
/// none is ever changed after (a table only grows, by whole lines). A job file that is rewritten (`farm
/// reload` marks it fresh) was finished first, and only ever goes back to queue/0, never to an add's batch.
/// A job whose table is not published yet (the batch is committed before its lists) is read by `Spool.load`,
/// which publishes it.
///
/// The tables are read a block of `block` lines at a time, with one pread, and scanned once for where
/// each block starts, only as far as the jobs claimed so far: claims take a batch's shards in order, so
/// the numbers they meet mostly grow. Any thread; the worker's transfers share one. The spool names where
/// each list's table is (`ListFiles.resourceTablePath(ofList:)`; FarmSpool's `TableRecords(spool:)`).
public final class TableRecords: Sendable {
    static let block = 1024
    static let scanChunk = 1 << 18

    private let tablePath: @Sendable (String) -> String
    private let tables = Locked<[String: Table]>([:])

    private struct Table {
        /// starts[k]: the byte offset of line k × block.
        var starts: [Int] = [0]
        /// Whole lines scanned, and the offset just past the last of them.
        var lines = 0
        var scanned = 0
        /// The lines of the block read last, as ranges of its bytes.
        var cached: (block: Int, bytes: [UInt8], lines: [Range<Int>])?
    }

    /// `tablePath`: the path of the resource table of a list id.
    public init(tablePath: @escaping @Sendable (String) -> String) {
        self.tablePath = tablePath
    }

    /// Job `job`'s record as its list's table holds it; nil when the table has no such line (yet).
    public func record(of job: JobName) -> JobRecord? {
        let bytes: [UInt8]? = tables.withLock { tables in
            var table = tables[job.list] ?? Table()
            defer { tables[job.list] = table }
            return line(job.index, of: job.list, in: &table)
        }
        return bytes.flatMap { JobRecord.decoded(from: $0) }
    }

    private func line(_ index: Int, of list: String, in table: inout Table) -> [UInt8]? {
        let path = tablePath(list)
        if index >= table.lines {
            guard let fd = try? FileDescriptor.open(path, .readOnly) else { return nil }
            defer { fd.closeQuietly() }
            scan(fd, until: index, &table)
            // The block read last may have ended where the scan stopped, mid-block: read it again, whole.
            table.cached = nil
            guard index < table.lines else { return nil }
        }
        let block = index / Self.block
        if table.cached?.block != block {
            let start = table.starts[block]
            let end = block + 1 < table.starts.count ? table.starts[block + 1] : table.scanned
            guard let fd = try? FileDescriptor.open(path, .readOnly) else { return nil }
            defer { fd.closeQuietly() }
            var bytes = [UInt8](repeating: 0, count: end - start)
            let read = (try? bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in try fd.read(at: start, into: buffer) }
            }.get()) ?? -1
            guard read == bytes.count else { return nil }
            var lines: [Range<Int>] = []
            var from = 0
            for (offset, byte) in bytes.enumerated() where byte == 0x0A {
                lines.append(from..<offset)
                from = offset + 1
            }
            table.cached = (block, bytes, lines)
        }
        guard let cached = table.cached, index % Self.block < cached.lines.count else { return nil }
        return Array(cached.bytes[cached.lines[index % Self.block]])
    }

    /// Counts whole lines on from where the last scan stopped, until line `index` is among them or the
    /// file ends, noting where each block starts.
    private func scan(_ fd: FileDescriptor, until index: Int, _ table: inout Table) {
        var chunk = [UInt8](repeating: 0, count: Self.scanChunk)
        var offset = table.scanned
        while index >= table.lines {
            let read = (try? chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in try fd.read(at: offset, into: buffer) }
            }.get()) ?? 0
            guard read > 0 else { return }
            for position in 0..<read where chunk[position] == 0x0A {
                table.lines += 1
                table.scanned = offset + position + 1
                if table.lines % Self.block == 0 { table.starts.append(table.scanned) }
            }
            // A last line still being written is read again, whole, by the next scan; a chunk with no
            // end of line in it is no table of job records.
            guard table.scanned > offset, read == chunk.count else { return }
            offset = table.scanned
        }
    }
}
