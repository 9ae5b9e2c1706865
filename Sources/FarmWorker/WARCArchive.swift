// A worker's WARC files (SPEC §18, `farm add --warc DIR`), and why a finished list's files hold exactly one
// response record for each URL fetched, whatever was killed when.
//
// The problem: a job's records are appended to a WARC file before its completion, and a worker killed
// between the two leaves the job to a redo, whose own fetch would append a second response; the other way
// round (completion first) a kill would lose the record. So each job's records are noted before a byte of
// them is written, in the spool's `warc/marks/<job>` (Spool.warcMark): which file (its finished name),
// where its response member starts, and that record's WARC-Record-ID. A job that comes to record reads its
// mark first: when the member at that place of that file (`.open` or finished) is whole and carries that ID,
// the job's exchange is in, and this fetch is not appended again (the record kept is a whole earlier fetch
// of the same URL, for the same job). Otherwise (no mark, a torn member cut off by recovery, another record
// there after a failed append) the records are appended and the mark says so. The mark is flocked while it is
// read and the records written, so two owners of one job (one whose lease lapsed while it fetched) take turns.
//
// What a kill leaves, step by step:
// - before the mark: nothing; the redo appends.
// - after the mark, during the append: a torn tail, which the writer's next append overwrites or, the writer
//   being dead, WARCRecovery cuts off (supervisor start, a worker's death); the redo finds no whole member
//   with the mark's ID there and appends.
// - after the append (fdatasync'd), before the completion: the redo finds the record and appends nothing.
// The response is written before the request (WARCExchange): a kill between the two leaves a response with
// no request, never the other way round; the redo then appends neither.
//
// A mark stays until `farm reset`: a resource reloaded later (`farm reload`) keeps its first record. Bytes
// served from another job's download (download once, SPEC §7) were not fetched for this job: not recorded.
// Only what a job stores is recorded: an answer that is not a 2xx fails the job with no record.
import FarmSpool
import FarmSystem
import FarmTransfer
import FarmWARC
import SystemPackage

/// The WARC writers of one worker process, one per folder, made at their first record and finished when the
/// worker ends. Any of its transfer threads (or its converter) records through it, one at a time.
final class WARCArchive: Sendable {
    private let spool: Spool
    private let writers = Locked<[String: WARCWriter]>([:])

    /// `software` of each file's warcinfo record.
    static let software = "farm/0.1"

    init(spool: Spool) { self.spool = spool }

    /// Appends `exchange` (the response's body the file at `body`) to `settings`' folder for `job`, unless the
    /// job's mark says it is there already (see the top of this file); on the disk when it returns.
    func record(_ exchange: CapturedExchange, body: String, of job: JobName, to settings: WARCSettings)
        throws(WARCError) {
        let markPath = spool.warcMark(job)
        let mark: FileDescriptor
        do {
            mark = try Self.openMark(markPath)
        } catch {
            // A spool whose list came from before warc/ existed, or a folder removed: made again once.
            do {
                try FileSystem.ensureDirectories(spool.warcMarks)
                mark = try Self.openMark(markPath)
            } catch { throw WARCError("cannot open \(markPath)", error) }
        }
        defer { mark.closeQuietly() }
        do { try mark.lock() } catch { throw WARCError("cannot lock \(markPath)", error) }
        if let noted = WARCMark(bytes: (try? mark.readAll(limit: 4096)) ?? []),
           try noted.isWritten(in: settings.folder) {
            return
        }
        let records = WARCExchange(
            targetURI: exchange.url, date: WARCDate(seconds: exchange.date), ipAddress: exchange.ipAddress,
            request: WARCBlock(head: exchange.requestHead),
            response: WARCBlock(head: exchange.responseHead, body: .file(body)))
        try writers.withLock { (writers: inout [String: WARCWriter]) throws(WARCError) in
            let writer = try Self.writer(for: settings, in: &writers)
            try writer.write(records) { (written) throws(WARCError) in
                let bytes = WARCMark(file: written.file, offset: written.offset, responseID: written.responseID.text).bytes
                var failure: Errno?
                bytes.withUnsafeBytes { raw in
                    do throws(Errno) {
                        try mark.truncate(to: 0)
                        _ = try mark.write(contentsOf: raw, at: 0)
                        try mark.syncData()
                    } catch { failure = error }
                }
                if let failure { throw WARCError("cannot write \(markPath)", failure) }
            }
        }
    }

    /// Finishes every file this worker has open (renamed to `.warc.gz`): the worker ends.
    func close() {
        writers.withLock { writers in
            for (folder, writer) in writers {
                do { try writer.close() } catch { spool.log("cannot finish the WARC file in \(folder): \(error)") }
            }
            writers = [:]
        }
    }

    private static func openMark(_ path: String) throws(Errno) -> FileDescriptor {
        try FileDescriptor.open(path, .readWrite, options: [.create], permissions: 0o644)
    }

    /// The writer of `settings.folder`, made at its first use (its files rotated at the size of the first list
    /// that names the folder).
    private static func writer(for settings: WARCSettings, in writers: inout [String: WARCWriter])
        throws(WARCError) -> WARCWriter {
        if let writer = writers[settings.folder] { return writer }
        let writer = try WARCWriter(directory: settings.folder, software: software,
                                    maxSize: settings.maxSize ?? WARCWriter.defaultMaxSize)
        writers[settings.folder] = writer
        return writer
    }
}

/// A job's mark (`warc/marks/<job>`): three lines, the file's finished name, the offset of the response's
/// member, its WARC-Record-ID.
struct WARCMark: Equatable {
    let file: String
    let offset: Int
    let responseID: String

    init(file: String, offset: Int, responseID: String) {
        self.file = file
        self.offset = offset
        self.responseID = responseID
    }

    /// A mark as read; nil for an empty file (made, never written) or anything else.
    init?(bytes: [UInt8]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count == 3, let offset = Int(lines[1]), !lines[0].contains("/") else { return nil }
        self.init(file: lines[0], offset: offset, responseID: lines[2])
    }

    var bytes: [UInt8] { Array("\(file)\n\(offset)\n\(responseID)\n".utf8) }

    /// Whether the record it names is whole in its file in `folder`, open or finished.
    func isWritten(in folder: String) throws(WARCError) -> Bool {
        // The open name first: recovery renames it to the finished one, never back.
        for name in [file + WARCWriter.openSuffix, file] {
            if let id = try WARCScan.recordID(path: folder + "/" + name, at: offset) { return id.text == responseID }
        }
        return false
    }
}

extension JobRun {
    /// Hands the job's fetch over to the worker's WARC archive (SPEC §18) before the job completes; false when
    /// it could not be recorded: the job failed with the reason (`farm retry` records it once the folder takes it).
    func recordExchange(_ exchange: CapturedExchange, to settings: WARCSettings, file: String, bytes: Int,
                        kind: String) -> Bool {
        guard let archive else { return true }
        do {
            try archive.record(exchange, body: file, of: claim.job, to: settings)
            return true
        } catch {
            fail("cannot record the WARC: \(error)", partial: nil, kind: kind, file: file, bytes: bytes)
            return false
        }
    }
}
