// A recursive list's growth (SPEC §18): the links of a fetched page enter the list
// ================================================================================
//
// SPEC §18: "a kill of any process loses nothing and adds no link twice: a page's completion and the
// addition of its links are one step". The step is made of two commits that already exist, ordered, and
// of one rule that makes the first idempotent:
//
//   1. The owner of a page's job, once its bytes are stored and before its completion rename, reads the
//      page's links (FarmWorker's CrawlStep.swift) and appends those the list does not have yet, as a
//      page of a paged list is appended (PageAppend.swift, "Pages" in Lists.swift): under the add lock
//      and the list's edit lock, the range `N-M` to the edit journal, the records to the resource table,
//      their jobs queued as a batch of their own, their numbers appended to the order, synced: that
//      append is the links' commit point.
//   2. Then the page completes as any job does (FarmSpool's Complete.swift).
//
//   The rule: a URL is added to a list at most once, ever. The list's resource table holds every record
//   the list ever had (a removed resource's line stays), so "the list has it" is "its table has a line of
//   that URL" (URLs are normalized, so equal links are equal strings), checked under the edit lock. An
//   append undone by its journal cuts its lines off the table (`finishEdit`), so a line is a link added.
//
// A kill before 1's commit: the journal undoes the append (the next edit of the list, or recovery), the
// page's lease runs out, the page is fetched again and its links appended by its next owner. A kill
// between 1 and 2: the page is fetched again and its links are all in the table already: nothing is
// added. A kill after 2: nothing is left to do. So no link is lost (a page is never done before its
// links are in) and none is added twice (the table is the set of links added, read under the lock that
// every append holds). A worker that lost its lease mid-step (another owner has the page now) may still
// append: the links are the same and the rule drops the second append's.
//
// Why not one rename: the completion rename cannot publish other files in the same step, and a mark made
// before it (as hooks do) would still need this idempotent append after it; here the append is that
// step, done by the owner, with nothing left for another process to finish.
//
// What a plain list pays: nothing. Whether a list crawls is in its request options (`crawl`), which the
// worker reads and caches per list for every job already; a job of a list without it never gets here.
//
// What a recursive list pays per page that adds links: the syncs of an edit (journal, table, a batch,
// the order). Each worker keeps, per list, the set of URLs in the table and how far it read it
// (`CrawlSeen`): under the lock it reads only the lines appended since, so a page costs what the list
// grew by since the worker's last page, not what the list holds.
import FarmJSON
import FarmSpool
import FarmSystem
import SystemPackage

/// The URLs of one recursive list's resource table as far as one process has read it: a cache of the set
/// of links the list has, brought up to date under the list's edit lock before every append.
public final class CrawlSeen: @unchecked Sendable {
    /// The table's bytes read so far (whole lines) and the URLs of their records.
    fileprivate var read = 0
    fileprivate var lines = 0
    fileprivate var urls = Set<String>()

    public init() {}

    /// Whether `url` was in the table at the last read.
    public func contains(_ url: String) -> Bool { urls.contains(url) }
}

extension Lists {
    /// Appends to recursive list `id` the records of `links` (normalized URLs, in the order found) whose URL
    /// the list never had, as one edit (see the header). Returns how many were added. Throws when the list
    /// is gone or the spool fails: the caller's page is then not completed, and its next run appends again.
    public func appendLinks(_ links: [JobRecord], toList id: String, seen: CrawlSeen) throws(SpoolError) -> Int {
        do { return try appending(links, toList: id, seen: seen) } catch {
            // Undone by the list's journal: what `seen` took from it is no longer so.
            seen.read = 0
            seen.lines = 0
            seen.urls = []
            throw error
        }
    }

    private func appending(_ links: [JobRecord], toList id: String, seen: CrawlSeen) throws(SpoolError) -> Int {
        let sharing = URLSharing(spool)
        return try sharing.lockingAdds { () throws(SpoolError) -> Int in try lockingList(id) { () throws(SpoolError) -> Int in
            guard let record = spool.list(id) else { throw SpoolError(.refused, "no list \(id) in the spool") }
            let lines = try refresh(seen, ofList: id)
            var added = links.filter { seen.urls.insert($0.url).inserted }
            guard !added.isEmpty else { return 0 }
            seen.read = try appendResources(&added, toList: id, at: lines, total: record.total, sharing: sharing,
                                            failpoints: ("crawl.tabled", "crawl.queued", "crawl.committed"))
            seen.lines += added.count
            return added.count
        } }
    }

    /// Brings `seen` up to the resource table of list `id` (whole lines; a line cut short by a writer killed
    /// mid-append is no line, and the next append cuts it off) and returns how many lines the table has. A
    /// table shorter than what was read (fsck rebuilt it, an undone edit cut it) is read again from its start.
    private func refresh(_ seen: CrawlSeen, ofList id: String) throws(SpoolError) -> Int {
        let path = spool.lists.resourceTablePath(ofList: id)
        let bytes: [UInt8]
        do {
            let fd = try FileDescriptor.open(path, .readOnly)
            defer { fd.closeQuietly() }
            let size = Int(try fd.status().size)
            if size < seen.read {
                seen.read = 0
                seen.urls = []
                seen.lines = 0
            }
            var tail = [UInt8](repeating: 0, count: size - seen.read)
            let count = try tail.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in try fd.read(at: seen.read, into: buffer) }
            }.get()
            tail.removeSubrange(count...)
            bytes = tail
        } catch {
            throw SpoolError(.io, "cannot read the resource table of list \(id)", cause: error)
        }
        let whole = bytes.lastIndex(of: 0x0A).map { bytes[...$0] } ?? []
        for line in whole.split(separator: 0x0A) {
            guard let record = JSON.decode(JobRecord.self, from: line) else {
                throw SpoolError(.corrupt, "a line of the resource table of list \(id) does not parse")
            }
            seen.urls.insert(record.url)
            seen.lines += 1
        }
        seen.read += whole.count
        return seen.lines
    }
}
