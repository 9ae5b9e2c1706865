// Lists: edits, order, reload, retry, pages and sync's replacement
// ================================================================
//
// What lists as users change them add to the spool's protocol (FarmSpool's PROTOCOL.md, read first).
//
//     lists/<list>.order      an edited list's order (ListOrder: the job number at each index; absent,
//                             the order is 0..<total)
//     lists/<list>.lock       the list's edit lock (flock), held for the whole of an edit
//     lists/<list>.edit       the edit's journal: the job number(s) it adds or removes, `N` or `N-M`
//     lists/<list>.*.new      what an edit stages beside its list (an order, a new job file)
//     lists/<list>.pages      a paged list's page log while it is followed; `.paged` once done
//
// Edit (ListEdit.swift). `farm item add|rm|move` changes a list under its edit lock. The order is replaced
// by one rename: that is the commit point, and an index is always the position in the committed order,
// so indexes have no gap. An add appends its record to the resource table (a line past the committed
// order is unused), queues its job (at the end: a new batch; elsewhere: ahead, in batch 0) and commits.
// A removal commits, then purges the job wherever it is (a claim taken away ends its owner's transfer at
// its next renewal; an owner that lost a removed job deletes what it stored) with its outputs. Before
// either, the job number goes to the journal: an editor killed half-way leaves it, and the next editor of
// the list or `recover()` purges the job of a number the committed order does not hold, so every edit
// ends whole or undone. A move commits, then moves a queued job ahead when it moved ahead.
//
// Pages (PageLog.swift, PageAppend.swift; the follower is FarmPages). A list read from a paged JSON API
// is added with no resource: its record (which holds the source), an empty resource table and its page
// log, whose first line names the first page. The log gains one line (`PageState`) per page added; its
// last whole line is the list's state (next page, pages fetched, done, error, title, cover, and the
// table's lines and bytes as that page left them). One process follows the pages (`control/follower.lock`).
// A page is fetched with no lock held, then added as an edit: the journal gets the range `N-M` it adds,
// their records are appended to the table, their jobs queued as a batch, and their numbers appended to
// the order file: that append, synced, is the commit point, so a page costs what it adds, not what the
// list holds. Readers of an order take whole numbers only (an append killed mid-write leaves a piece of
// one, cut off by the next). Then the log gains the page's line, synced: where the next follower
// resumes. Killed before the commit, the journal undoes the page and it is fetched again; killed after,
// it is fetched again and adds nothing (no resource whose id, or URL without ids, the list has since its
// last page). The line that ends the list is followed by the rename of the log to `.paged`, so `.pages`
// names only lists still followed. A cover is downloaded to `files/<list>/cover.<kind>`, then recorded
// by a line of its own.
//
// Links (CrawlAppend.swift). A recursive list (SPEC §18) starts with one resource; the owner of each page's
// job appends the page's links as a page is appended above, before it completes the page, each URL once (the
// table is the set of URLs the list has: an undone append cuts its lines off). The header there says why.
//
// Reload and retry (ListReload.swift, FailedJobs.swift). A finished job goes back to the queue after what
// its last run left (outputs, sidecar, partial bytes) is deleted; a reloaded one is marked `fresh` (see
// FarmDedup), a retried one keeps its outcome record for the attempts count. Killed half-way, each job is
// still finished (run it again) or queued.
//
// Sync's replacement (SyncReplace.swift; the command is FarmSync). A changed done resource's outputs are
// made in a stage `tmp/sync-…/` under their final names; under the list's edit lock, if the job is still
// the same done file with the same record, each is renamed over the old one, then the record is
// replaced, then the old outputs the new record does not name are deleted. Killed before the record, the
// old validators make the next sync fetch it again; killed after, the next sync deletes the outputs no
// record names first. A stage whose sync is gone is garbage.
import FarmSpool

/// The lists of a spool as users edit, reload, retry, page and sync them (the protocol above). A value
/// holding the spool's layout; any process or thread may make one and use it.
public struct Lists: Sendable {
    public let spool: Spool

    public init(_ spool: Spool) { self.spool = spool }
}
