import FarmHooks
import FarmLists
import FarmSpool
import FarmSystem

/// Windows of the per-list view (SPEC §9): `limit` resources from position `offset` of a list, or of
/// the resources that match a search, for the views that show a list a screenful at a time
/// (`farm serve`'s grid, `farm top`'s resources screen).
///
/// A window's cost is proportional to the window, not to the list: its lines of the resource table
/// (kept in memory, read again only when the table file changes), one readdir of active/, and for each
/// resource a stat or two (done/<list>, failed/<list>) and its sidecar once it left the queue. The
/// counts of a list longer than a window come from the whole-spool summary the caller already holds;
/// those of a shorter one (or with no summary) from a scan of the list that agrees with the rows.
/// A search looks through every resource's id, URL, title and caption (`SearchKeys`, built on the
/// first search) and through the status texts, reading done/<list> and failed/<list> only when the
/// search could match "Queueing", "Done" or "Error".
///
/// A recursive list's window also has its counts per host (`hosts`, issue 64): from the folders a short
/// list's window reads anyway, and for a longer one counted once for each state of its summary entry (one
/// readdir of done/<list> and failed/<list> and a pass over the list's hosts, `HostTable`), not for each
/// window or frame that asks while the summary stays the same.
///
/// Thread-safe: one instance serves every request of a process; the work runs outside its lock.
public final class ListWindows: Sendable {
    /// The most resources one window holds.
    public static let maxLimit = 500
    /// Lists whose tables are kept at once (the least recently used goes first).
    private static let capacity = 4

    private struct Entry {
        var lines: ResourceLines
        var keys: SearchKeys?
        /// The last search's matches among the keys (the status texts are matched afresh each time).
        var lastSearch: (query: [UInt8], matches: [Int])?
        var used: Int
    }

    private let entries = Locked<(tables: [String: Entry], clock: Int)>(([:], 0))

    /// A recursive list's hosts, and its counts per host for the summary entry they were counted for.
    private struct HostEntry {
        var table: HostTable
        /// The list's total, active, done and failed in the summary, and its table, when `counts` were made.
        var key: SummaryState?
        var counts: [HostCounts] = []
        var used: Int
    }

    private struct SummaryState: Equatable {
        var total: Int, active: Int, done: Int, failed: Int
        var table: FileIdentity

        init(_ list: ListStatus, table: FileIdentity) {
            (total, active, done, failed) = (list.total, list.active, list.done, list.failed)
            self.table = table
        }
    }

    private let hostEntries = Locked<(lists: [String: HostEntry], clock: Int)>(([:], 0))

    public init() {}

    /// The window of list `listID` at `offset` (`limit` clipped to `maxLimit`), among the resources
    /// matching `query` when there is one (see `normalized`); nil when no such list is published.
    /// `counts` is the list as the whole-spool summary has it, if the caller holds one.
    public func window(_ spool: Spool, listID: String, offset: Int, limit: Int, query: String? = nil,
                       counts: ListStatus? = nil) -> ListStatus? {
        guard let record = spool.shownList(listID) else { return nil }
        let offset = max(0, offset), limit = max(0, min(limit, Self.maxLimit))
        let lines = self.lines(spool, listID: listID)
        var active: [Int: String] = [:]
        for name in spool.claimedNames(inFlight: true) {
            if let job = ActiveName(name)?.job, job.list == listID { active[job.index] = name }
        }
        // The job number at each index: for a list never edited, the index itself (no file to read).
        let order = Lists(spool).order(ofList: listID, total: record.total)
        let query = Self.normalized(query)
        var matched: Int?
        let positions: [Int]
        if let query {
            let numbers = self.matches(query, spool, listID: listID, order: order, lines: lines, active: active)
            let indexes = order.indexes(atLeast: lines.count)
            let matches = numbers.compactMap { indexes.indices.contains($0) && indexes[$0] >= 0 ? indexes[$0] : nil }
                .sorted()
            matched = matches.count
            positions = offset < matches.count ? Array(matches[offset..<min(matches.count, offset + limit)]) : []
        } else {
            positions = offset < order.count ? Array(offset..<min(order.count, offset + limit)) : []
        }
        let hooks = spool.hooks.results(ofList: listID)
        let resources = positions.map { index in
            let number = order.numbers[index]
            let job = JobName(list: listID, index: number)
            let place = ListView.place(spool, job, active: active[number])
            // When it was last queued matters only to a queued resource (its `changed`).
            let queued = place == .queued ? spool.handedBack(job).map(Timestamp.iso8601) ?? record.added : record.added
            var row = ListView.resource(spool, job, at: index, table: lines.record(number), place: place, queued: queued)
            row.labelled = record.paged != nil
            row.delivers = record.delivery != nil
            row.hook = hooks[number]
            return row
        }
        let jobs: (active: Int, done: Int, failed: Int)
        // The folders as read for this window's counts, when it reads them (a short list).
        var read: ListJobs?
        let known = counts.flatMap { $0.id == listID ? $0 : nil }
        if let known, order.count > Self.maxLimit {
            // A list longer than a window: reading its folders for every window would cost as much as
            // the list, so the counts are the summary's, a moment older than the rows.
            jobs = (known.active, known.done, known.failed)
        } else {
            // From the folders read now, each job shown counted where its row puts it (rows are read
            // after the folders): a window's counts say what its rows say (SPEC §4).
            var places = ListJobs()
            for number in active.keys { places.active.insert(number) }
            places.done = StatusScan.jobSet(spool, listID, .done)
            places.failed = StatusScan.jobSet(spool, listID, .failed)
            places = places.settled()
            for (row, index) in zip(resources, positions) { places.place(order.numbers[index], as: row.status) }
            jobs = (places.active.count, places.done.count, places.failed.count)
            read = places
        }
        var list = ListStatus(id: listID, name: record.name, total: order.count, active: jobs.active,
                              done: jobs.done, failed: jobs.failed, resources: resources,
                              paging: Paging.of(record, state: Lists(spool).pageState(ofList: listID)), request: record.request)
        list.count(under: StatusScan.share(of: active.keys.map { JobName(list: listID, index: $0) }, spool))
        list.window = ListStatus.Window(offset: offset, limit: limit, query: query, matched: matched)
        list.held = spool.held.contains(listID)
        if record.request?.recursive != nil {
            list.hosts = hosts(spool, listID: listID, lines: lines, order: order, active: active, read: read, counts: known)
        }
        return list
    }

    /// The counts per host of list `listID` (issue 64) when it is a recursive list, nil otherwise: what
    /// its windows carry, for the views that show a list's hosts without a window of it (`farm top`'s plain
    /// lines). `counts` is the list as the whole-spool summary has it, if the caller holds one: the counts
    /// are made again only when it changed.
    public func hosts(_ spool: Spool, listID: String, counts: ListStatus? = nil) -> [HostCounts]? {
        guard let record = spool.list(listID), record.request?.recursive != nil else { return nil }
        let key = counts.flatMap { $0.id == listID ? SummaryState($0, table: ResourceLines.identity(spool, listID: listID)) : nil }
        // Asked again with nothing changed (every tick of a view): one stat of the table, nothing read.
        if let kept = keptHosts(listID, key: key) { return kept }
        var active: [Int: String] = [:]
        for name in spool.claimedNames(inFlight: true) {
            if let job = ActiveName(name)?.job, job.list == listID { active[job.index] = name }
        }
        return hosts(spool, listID: listID, lines: lines(spool, listID: listID),
                     order: Lists(spool).order(ofList: listID, total: record.total), active: active, read: nil,
                     counts: counts.flatMap { $0.id == listID ? $0 : nil })
    }

    /// The counts per host of the jobs of `order`: where `read` puts them when the caller read the folders,
    /// else as counted for `counts` (the summary's entry) if nothing changed since, else from the folders now.
    private func hosts(_ spool: Spool, listID: String, lines: ResourceLines, order: ListOrder, active: [Int: String],
                       read: ListJobs?, counts: ListStatus?) -> [HostCounts] {
        let key = read == nil ? counts.map { SummaryState($0, table: lines.identity) } : nil
        if let kept = keptHosts(listID, key: key) { return kept }
        let earlier = hostEntries.withLock { $0.lists[listID]?.table }
        let table = earlier.flatMap { $0.identity == lines.identity ? $0 : nil } ?? HostTable(lines, extending: earlier)
        var jobs: ListJobs
        if let read {
            jobs = read
        } else {
            jobs = ListJobs()
            for number in active.keys { jobs.active.insert(number) }
            jobs.done = StatusScan.jobSet(spool, listID, .done)
            jobs.failed = StatusScan.jobSet(spool, listID, .failed)
            jobs = jobs.settled()
        }
        let made = table.counts(order.numbers, jobs)
        hostEntries.withLock { entries in
            entries.clock += 1
            entries.lists[listID] = HostEntry(table: table, key: key, counts: made, used: entries.clock)
            while entries.lists.count > Self.capacity,
                  let oldest = entries.lists.min(by: { $0.value.used < $1.value.used })?.key {
                entries.lists[oldest] = nil
            }
        }
        return made
    }

    /// The counts of list `listID`'s hosts made for `key`, if that is what they were last made for.
    private func keptHosts(_ listID: String, key: SummaryState?) -> [HostCounts]? {
        guard let key else { return nil }
        return hostEntries.withLock { entries -> [HostCounts]? in
            guard let entry = entries.lists[listID], entry.key == key else { return nil }
            entries.clock += 1
            entries.lists[listID]?.used = entries.clock
            return entry.counts
        }
    }

    /// A search as windows take it: trimmed and lowercased; nil when nothing is left.
    public static func normalized(_ query: String?) -> String? {
        guard let query else { return nil }
        let folded = String(decoding: SearchKeys.folded(query.trimmingWhitespace), as: UTF8.self)
        return folded.isEmpty ? nil : folded
    }

    /// The table of `listID`, from memory unless its file changed.
    func lines(_ spool: Spool, listID: String) -> ResourceLines {
        let identity = ResourceLines.identity(spool, listID: listID)
        let kept = entries.withLock { entries -> ResourceLines? in
            guard let entry = entries.tables[listID], entry.lines.identity == identity else { return nil }
            entries.clock += 1
            entries.tables[listID]?.used = entries.clock
            return entry.lines
        }
        if let kept { return kept }
        let lines = ResourceLines.read(spool, listID: listID)
        guard lines.identity.isSettled(now: Clock.wall()) else { return lines }
        entries.withLock { entries in
            entries.clock += 1
            entries.tables[listID] = Entry(lines: lines, used: entries.clock)
            while entries.tables.count > Self.capacity,
                  let oldest = entries.tables.min(by: { $0.value.used < $1.value.used })?.key {
                entries.tables[oldest] = nil
            }
        }
        return lines
    }

    /// The job numbers of the resources that match `query`, ascending: by their keys, or by their status
    /// text. Numbers of resources removed from the list may be among them: the caller maps them by `order`.
    private func matches(_ query: String, _ spool: Spool, listID: String, order: ListOrder, lines: ResourceLines,
                         active: [Int: String]) -> [Int] {
        let needle = Array(query.utf8)
        let byKeys = keyMatches(needle, listID: listID, lines: lines)
        var hits = [Bool](repeating: false, count: max(lines.count, (order.numbers.max() ?? -1) + 1))
        var any = false
        func hit(_ index: Int) {
            if index >= 0 && index < hits.count { hits[index] = true }
            any = true
        }
        // The statuses shared by many resources: each needs only where its job is.
        let queued = "queueing".contains(query), done = "done".contains(query), failed = "error".contains(query)
        if queued || done || failed {
            let doneSet = StatusScan.jobSet(spool, listID, .done), failedSet = StatusScan.jobSet(spool, listID, .failed)
            for number in order.numbers where active[number] == nil {
                if doneSet.contains(number) ? done : failedSet.contains(number) ? failed : queued { hit(number) }
            }
        }
        // A job in active/ shows its owner's status ("Downloading 45%"): read for the few there are.
        for (number, name) in active {
            let job = JobName(list: listID, index: number)
            let text = ListView.resource(spool, job, at: 0, table: nil, place: .active(name), queued: "").text
            if String(decoding: SearchKeys.folded(text), as: UTF8.self).contains(query) { hit(number) }
        }
        guard any else { return byKeys }
        for index in byKeys { hits[index] = true }
        return hits.indices.filter { hits[$0] }
    }

    /// The matches of `needle` among the keys of `lines`, remembered for the next window of the same search.
    private func keyMatches(_ needle: [UInt8], listID: String, lines: ResourceLines) -> [Int] {
        let (keys, last) = entries.withLock { entries -> (SearchKeys?, [Int]?) in
            guard let entry = entries.tables[listID], entry.lines === lines else { return (nil, nil) }
            return (entry.keys, entry.lastSearch.flatMap { $0.query == needle ? $0.matches : nil })
        }
        if let last { return last }
        let built = keys ?? SearchKeys(lines)
        let matches = built.matches(needle)
        entries.withLock { entries in
            guard entries.tables[listID]?.lines === lines else { return }
            entries.tables[listID]?.keys = built
            entries.tables[listID]?.lastSearch = (needle, matches)
        }
        return matches
    }
}

extension String {
    /// Without the spaces and newlines at either end.
    fileprivate var trimmingWhitespace: String {
        let scalars = unicodeScalars.drop { $0.properties.isWhitespace }.reversed().drop { $0.properties.isWhitespace }
        return String(String.UnicodeScalarView(scalars.reversed()))
    }
}
