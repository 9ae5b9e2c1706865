// A worker's WARC files (SPEC §18, `farm add --warc DIR`), and why a finished list's files hold exactly one
// response record for each URL fetched, whatever was killed when.
//
// What a job records: every exchange of its last attempt, in one append, once it has ended: each redirect's
// hop (the 3xx as received, its body included), then the answer they led to, the resource it stores or the
// error it fails with (a 404, a 5xx given up on; SPEC §5's `error` all the same). An attempt that is retried
// (a 503, a connection cut) records nothing of its own: its URLs are fetched again, and only their last,
// complete fetch is kept (JobRun.note keeps the latest exchange of each URL). wget and Heritrix write each
// attempt's response as it comes, so that a retried URL has one record per attempt; §18 asks for one per URL,
// and the retry's is the one a reader wants.
//
// The problem across kills: a job's records are appended to a WARC file before its completion, and a worker
// killed between the two leaves the job to a redo, whose own fetch would append a second response; the other
// way round (completion first) a kill would lose the records. And one URL may be fetched by several jobs of a
// list (two redirects to one place, `/dir` to `/dir/` beside a link to `/dir/`). So each URL's response is
// noted before a byte of it is written, in the list's mark of that URL, `warc/urls/<list>/<key>`
// (WARCFiles.urlMark, WARCMark.swift): which file (its finished name), where the group of records it goes with
// starts and how many members it has, the response's place in it, its WARC-Record-ID and status. A job that
// comes to record locks the marks of its URLs (in the order of their keys, so that two jobs never wait for
// each other in a circle), reads them, and reads the members they name (`.open` or finished): a URL whose
// response is whole there is not recorded again, the others are appended as one group and their marks say so.
// The locks are held until the append is on the disk, so two jobs of one URL (or two owners of one job, one
// whose lease lapsed while it fetched) take turns.
//
// What a kill leaves, step by step:
// - before the marks: nothing; the redo appends.
// - after the marks, during the append: a torn tail, which the writer's next append overwrites or, the writer
//   being dead, WARCRecovery cuts off (supervisor start, a worker's death). The members before the tear stay:
//   the redo finds those responses whole (with every member before them) and appends only the other URLs'.
// - after the append (fdatasync'd), before the completion: the redo finds every response and appends nothing.
// An exchange's response is written before its request (WARCExchange): a kill between the two leaves a response
// with no request, never the other way round; the redo then appends neither.
//
// A URL fetched again after its response was recorded: the record stands (a redo, a second job of the URL,
// another error answer), but for an error answer (its job failed: a 404, a 5xx given up on) superseded by a
// success (`farm retry`, or the server's answer changed while a killed job waited for its redo). Then the
// archive keeps the success only, the last complete fetch, and the error's response and request records are
// dropped from their file (WARCCompaction: the file rewritten without them and renamed over itself). In order,
// under the URL's mark lock:
// - the old response is noted to drop, `warc/drops/<list>/<key>` (WARCDrops), durably;
// - the mark names the new response, and the group is appended (as above; the writer first finishes its file
//   when the old response is in it, so that no writer appends to a file being compacted);
// - the drop is carried out, when the old file is finished, and unnoted.
// A drop is carried out only once the mark names a whole response other than the one to drop, so no kill
// leaves the URL with no response: killed before the append, the redo appends the new one (or, the server
// failing again, its new error: still the last fetch) and then drops the old; killed in the compaction, the
// file is the old one or the new one, and the drop still noted is done again by the redo. A drop from a file
// another live worker has open waits until the file is finished: each worker that starts or ends carries out
// the drops noted (WARCDrops.sweep), so once a list's files are finished by their workers' ends each URL has
// one response record (a file a killed worker left open is finished by recovery, and its drops by the next
// worker to start or end). Members after a dropped one move: marks find their response by its ID when it is
// not at its offset (WARCMark.isWritten).
//
// A mark stays until `farm reset`: a resource reloaded later (`farm reload`) keeps its first record. Bytes
// served from another job's download (download once, SPEC §7) were not fetched for this job: not recorded.
// A job mark of the older form (`warc/marks/<job>`, one exchange a job, before marks were by URL) still counts
// for its job (WARCJobMark).
import FarmDedup
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

    /// One exchange to record, and where its response's body is.
    struct Archived {
        let exchange: CapturedExchange
        let body: WARCBody

        /// Its records as FarmWARC writes them.
        var records: WARCExchange {
            WARCExchange(targetURI: exchange.url, date: WARCDate(seconds: exchange.date), ipAddress: exchange.ipAddress,
                         request: WARCBlock(head: exchange.requestHead),
                         response: WARCBlock(head: exchange.responseHead, body: body),
                         responseTruncated: exchange.bodyCut)
        }
    }

    /// Appends `exchanges` in order to `settings`' folder for `job`, but those whose URL the list's marks say
    /// is recorded there already (see the top of this file); on the disk when it returns.
    func record(_ exchanges: [Archived], of job: JobName, to settings: WARCSettings) throws(WARCError) {
        if try WARCJobMark.recordsJob(at: spool.warc.mark(job), in: settings.folder) { return }
        let marks = try WARCMarks(urls: exchanges.map(\.exchange.url), ofList: job.list, spool: spool)
        defer { marks.close() }
        var due: [Archived] = []
        var superseded: [String: WARCMark] = [:]
        for archived in exchanges {
            let exchange = archived.exchange
            if let mark = marks.mark(of: exchange.url), try mark.isWritten(in: settings.folder) {
                if !mark.yields(to: exchange.status) { continue }
                superseded[exchange.url] = mark
            }
            due.append(archived)
        }
        if !due.isEmpty {
            // The old response is noted to drop before its mark names the new one: a kill in between leaves
            // both noted, and the drop waits for the new response to be whole (WARCDrops).
            for (url, mark) in superseded {
                try WARCDrops.note(WARCDrops.Drop(responseID: mark.responseID, file: mark.file, folder: settings.folder),
                                   ofList: job.list, key: Dedup.urlKey(url), spool: spool)
            }
            try writers.withLock { (writers: inout [String: WARCWriter]) throws(WARCError) in
                let writer = try Self.writer(for: settings, in: &writers)
                // A superseded response in this writer's own open file: the file is finished first, so that it
                // can be compacted below (no writer appends to it any more), and the new records go to the next.
                if let current = writer.currentName, superseded.values.contains(where: { $0.file == current }) {
                    try writer.close()
                }
                try writer.write(due.map(\.records)) { (written) throws(WARCError) in
                    for (index, archived) in due.enumerated() {
                        let mark = WARCMark(file: written.file, offset: written.offset, records: written.recordIDs.count,
                                            position: 2 * index, responseID: written.recordIDs[2 * index].text,
                                            status: archived.exchange.status)
                        try marks.note(mark, for: archived.exchange.url)
                    }
                }
            }
        }
        // The drops of these URLs: the ones noted above, and any a kill left noted (the record redone).
        for url in Set(exchanges.map(\.exchange.url)) {
            WARCDrops.carryOut(ofList: job.list, key: Dedup.urlKey(url), mark: marks.mark(of: url), spool: spool)
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
        // Its files are finished: the superseded records it (or a worker before it) could not drop then.
        dropSuperseded()
    }

    /// Drops the superseded records noted in the spool whose files are finished (WARCDrops.sweep).
    func dropSuperseded() { WARCDrops.sweep(spool) }

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

extension JobRun {
    /// Records the job's exchanges (SPEC §18) before it completes as done: its answers before the last (see
    /// `note`), then the stored one, whose body is `file`. False when they could not be recorded: the job failed
    /// with the reason (`farm retry` records them once the folder takes them).
    func recordExchanges(to settings: WARCSettings, file: String, bytes: Int, kind: String) -> Bool {
        guard let archive else { return true }
        do {
            try archive.record(archived(last: exchange, body: file), of: claim.job, to: settings)
            return true
        } catch {
            fail("cannot record the WARC: \(error)", partial: nil, kind: kind, file: file, bytes: bytes, records: false)
            return false
        }
    }

    /// Records the exchanges of a job that fails (a 404, a 5xx given up on, a redirect to nowhere, bytes refused
    /// after a whole fetch, whose body is `body`); returns the reason it fails with, which says so when they
    /// could not be recorded.
    func recordFailure(_ reason: String, body: String?) -> String {
        guard let warc, let archive else { return reason }
        let exchanges = archived(last: body == nil ? nil : exchange, body: body)
        if exchanges.isEmpty { return reason }
        do {
            try archive.record(exchanges, of: claim.job, to: warc)
            return reason
        } catch {
            return reason + " (not recorded in the WARC: \(error))"
        }
    }

    /// The answers noted, then `last` with its body in the file at `body` (which replaces an answer of its URL).
    private func archived(last: CapturedExchange?, body: String?) -> [WARCArchive.Archived] {
        var all = answers.map { WARCArchive.Archived(exchange: $0, body: .bytes($0.body)) }
        if let last, let body {
            all.removeAll { $0.exchange.url == last.url }
            all.append(WARCArchive.Archived(exchange: last, body: .file(body)))
        }
        return all
    }

    /// Keeps `exchange`, a redirect's hop or an error answer of this job's fetch, to record once the job ends;
    /// it replaces an earlier one of its URL (an attempt retried): a URL is recorded by its last, complete fetch.
    mutating func note(_ exchange: CapturedExchange?) {
        guard let exchange else { return }
        answers.removeAll { $0.url == exchange.url }
        answers.append(exchange)
    }
}
