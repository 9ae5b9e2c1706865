import FarmLists
import FarmSpool
import FarmStatus
import FarmSystem

/// aria2's lists of downloads (`tellActive`, `tellWaiting`, `tellStopped`) and their numbers
/// (`getGlobalStat`), from the views the others use: each list's counts from the whole-spool summary as of
/// the call (`StatusReader.current`), and rows read for a page alone (`ListWindows.rows`). A call costs the
/// number of lists and the page, not the spool's resources (reading them all cost 0.6 to 0.9 s a call at
/// 100,000, and clients call several every second). A value for one call; any thread.
struct Aria2Lists {
    /// aria2's three lists: `waiting` holds the paused too, `stopped` the removed results.
    enum Kind {
        case active, waiting, stopped
    }

    let spool: Spool
    let windows: ListWindows
    let summary: StatusDocument
    /// Every claim in active/, by list: read once, after the summary.
    let claims: [String: [Int: String]]
    let paused: Bool
    /// The job numbers of each list whose results a client purged (hidden while they stay stopped).
    let forgotten: [String: JobSet]
    /// `aria2.remove`'s results, after every list's (stopped).
    let removed: [Aria2Download]

    init(spool: Spool, windows: ListWindows, forgotten: [String: JobSet], removed: [Aria2Download]) {
        self.spool = spool
        self.windows = windows
        summary = StatusReader.current(spool)
        claims = ListWindows.activeClaims(spool)
        paused = spool.control.isPaused
        self.forgotten = forgotten
        self.removed = removed
    }

    /// Where the jobs of `kind` are, in `list`: what would run waits while the farm is paused or the list held.
    private func places(_ kind: Kind, _ list: ListStatus) -> Set<JobPlace> {
        let held = paused || list.held
        switch kind {
        case .active: return held ? [] : [.active]
        case .waiting: return held ? [.queued, .active] : [.queued]
        case .stopped: return [.done, .failed]
        }
    }

    /// How many downloads of `list` are of `kind`, by its counts.
    private func count(_ kind: Kind, _ list: ListStatus) -> Int {
        let held = paused || list.held
        switch kind {
        case .active: return held ? 0 : list.active
        case .waiting: return list.queued + (held ? list.active : 0)
        case .stopped: return max(0, list.done + list.failed - purged(list))
        }
    }

    /// How many of `list`'s stopped jobs a client purged: its finished folders read only for a list purged.
    private func purged(_ list: ListStatus) -> Int {
        guard let jobs = forgotten[list.id], jobs.count > 0 else { return 0 }
        var count = 0
        for outcome in [Outcome.done, .failed] {
            StatusScan.jobSet(spool, list.id, outcome).compare(with: JobSet(), onlyHere: { count += jobs.contains($0) ? 1 : 0 },
                                                                onlyThere: { _ in })
        }
        return count
    }

    /// How many downloads are of `kind`, the removed results with the stopped.
    func count(_ kind: Kind) -> Int {
        summary.lists.reduce(kind == .stopped ? removed.count : 0) { $0 + count(kind, $1) }
    }

    /// The downloads of `kind` at `range` of their list (every list in order, then the removed results).
    /// A download that moved on since its list was counted is left out (aria2's own lists change between
    /// two calls as well).
    func downloads(_ kind: Kind, _ range: Range<Int>) -> [Aria2Download] {
        var found: [Aria2Download] = []
        var base = 0
        for list in summary.lists where base < range.upperBound {
            let size = count(kind, list)
            defer { base += size }
            guard base + size > range.lowerBound, size > 0, let record = spool.list(list.id) else { continue }
            let skip = max(0, range.lowerBound - base), limit = min(size, range.upperBound - base) - skip
            let forgotten = self.forgotten[list.id] ?? JobSet()
            let rows = windows.rows(spool, listID: list.id, active: claims[list.id] ?? [:], places: places(kind, list),
                                    skip: skip, limit: limit, leftOut: { kind == .stopped && forgotten.contains($0) })
            for (row, number, job) in rows {
                let download = Aria2Download(
                    gid: GID.of(list: list.id, resource: row.id), listID: list.id, listName: record.name,
                    resource: row, job: number, mirrors: job?.mirrors ?? [], folder: record.delivery?.folder, out: job?.out,
                    farmPaused: paused, held: list.held)
                if Self.kind(of: download) == kind { found.append(download) }
            }
        }
        if kind == .stopped {
            let total = count(.stopped)
            let first = max(0, range.lowerBound - (total - removed.count))
            let last = max(0, range.upperBound - (total - removed.count))
            found += removed[min(first, removed.count)..<min(last, removed.count)]
        }
        return found
    }

    static func kind(of download: Aria2Download) -> Kind {
        download.isStopped ? .stopped : download.state == .active ? .active : .waiting
    }
}
