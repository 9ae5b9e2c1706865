import FarmHooks
import FarmLists
import FarmSpool
import FarmSystem

/// Where a job is now, for the views that pick a list's resources by it (aria2's `tellActive`,
/// `tellWaiting`, `tellStopped`).
public enum JobPlace: Sendable {
    case queued, active, done, failed
}

extension ListWindows {
    /// Every claim in active/, by list and job number: one readdir for all the lists a view pages through.
    public static func activeClaims(_ spool: Spool) -> [String: [Int: String]] {
        var claims: [String: [Int: String]] = [:]
        for name in spool.claimedNames(inFlight: true) {
            if let job = ActiveName(name)?.job { claims[job.list, default: [:]][job.index] = name }
        }
        return claims
    }

    /// Up to `limit` rows of list `listID` among those whose job is in one of `places` (and not `leftOut`,
    /// by job number), from the `skip`-th of them on, in list order, each with its line of the table. `active`: the
    /// list's claims (`activeClaims`, read before this). Reads done/<list> and failed/<list> once each, and
    /// the table lines and sidecars of the rows it returns: a page of a list of 100,000 costs the page (and
    /// the jobs it steps over), not the list. A row says where its job is when it is read, which may be
    /// further on than where it was picked (the caller keeps what it asked for).
    public func rows(_ spool: Spool, listID: String, active: [Int: String], places: Set<JobPlace>, skip: Int,
                     limit: Int, leftOut: (_ number: Int) -> Bool = { _ in false })
        -> [(row: ResourceStatus, number: Int, record: JobRecord?)] {
        guard limit > 0, let record = spool.list(listID) else { return [] }
        let done = StatusScan.jobSet(spool, listID, .done), failed = StatusScan.jobSet(spool, listID, .failed)
        // Seen in active/ and then done/ or failed/, a job counts where it went, as the counts do.
        func place(_ number: Int) -> JobPlace {
            done.contains(number) ? .done : failed.contains(number) ? .failed : active[number] != nil ? .active : .queued
        }
        func keep(_ number: Int) -> Bool { places.contains(place(number)) && !leftOut(number) }
        let order = Lists(spool).order(ofList: listID, total: record.total)
        var positions: [Int] = []
        var rank = 0
        // The queued are most of a list: walked in order, up to the page's end. The others are few, or
        // the page is among them: their numbers alone are sorted by position.
        if places.contains(.queued) {
            for (index, number) in order.numbers.enumerated() where keep(number) {
                if rank >= skip { positions.append(index) }
                rank += 1
                if positions.count == limit { break }
            }
        } else {
            var numbers = Array(active.keys)
            done.compare(with: JobSet(), onlyHere: { numbers.append($0) }, onlyThere: { _ in })
            failed.compare(with: JobSet(), onlyHere: { numbers.append($0) }, onlyThere: { _ in })
            // A list never edited has its job numbers for positions (no order file: no map to build).
            let indexes = FileSystem.exists(spool.lists.orderPath(ofList: listID)) ? order.indexes() : nil
            var found: [(index: Int, number: Int)] = []
            for number in Set(numbers) where keep(number) {
                let index = indexes.map { number < $0.count ? $0[number] : -1 } ?? (number < order.count ? number : -1)
                if index >= 0 { found.append((index, number)) }
            }
            positions = found.sorted { $0.index < $1.index }.dropFirst(skip).prefix(limit).map(\.index)
        }
        return rows(spool, listID: listID, record: record, order: order, active: active, positions: positions) { number in
            switch place(number) {
            case .active: .active(active[number] ?? "")
            case .done: .done
            case .failed: .failed
            case .queued: .queued
            }
        }
    }

    /// The rows of list `listID` at `positions`, each where `place` puts its job (the row reads on from there).
    func rows(_ spool: Spool, listID: String, record: ListRecord, order: ListOrder, active: [Int: String],
              positions: [Int], place: (Int) -> ListView.Place) -> [(row: ResourceStatus, number: Int, record: JobRecord?)] {
        guard !positions.isEmpty else { return [] }
        let lines = self.lines(spool, listID: listID)
        let hooks = spool.hooks.results(ofList: listID)
        return positions.map { index in
            let number = order.numbers[index]
            let job = JobName(list: listID, index: number)
            let spot = place(number)
            let queued = spot == .queued ? spool.handedBack(job).map(Timestamp.iso8601) ?? record.added : record.added
            let line = lines.record(number)
            var row = ListView.resource(spool, job, at: index, table: line, place: spot, queued: queued)
            row.labelled = record.paged != nil
            row.delivers = record.delivery != nil
            row.hook = hooks[number]
            return (row, number, line)
        }
    }
}
