import FarmJSON
import FarmSpool
import FarmSystem
import SystemPackage

extension Lists {
    /// Adds the resources of one page at the end of paged list `id` and records the page in its log
    /// (see "Pages" in Lists.swift): an edit, under the list's edit lock, that appends to the resource
    /// table, queues the jobs in a batch of their own behind every other, and commits by appending their
    /// numbers to the list's order. `state` is the page's line of the log (its table fields are filled
    /// in here). A record with an empty id gets its job's name. Resources are told apart by id, or by URL
    /// when `byID` is false: one the list's last page,
    /// or anything added after it, already has is left out (a page fetched again adds nothing), and so is
    /// one a page repeats. Returns how many were added, or nil when the log moved on from `expected` (the
    /// page was recorded by someone else).
    public func appendPage(_ records: [JobRecord], byID: Bool, toList id: String, after expected: PageState,
                           state: PageState) throws(SpoolError) -> Int? {
        // Under the add lock, as every way of adding a job (URLSharing.swift).
        let sharing = URLSharing(spool)
        return try sharing.lockingAdds { () throws(SpoolError) -> Int? in try lockingList(id) { () throws(SpoolError) -> Int? in
            guard let record = spool.list(id) else { throw SpoolError(.refused, "no list \(id) in the spool") }
            guard pageState(ofList: id) == expected else { return nil }
            let window = try recentResources(ofList: id, since: expected, total: record.total)
            var seen = Set(window.records.map { byID ? $0.id : $0.url })
            var added = records.filter { seen.insert(byID ? $0.id : $0.url).inserted }
            var state = state
            state.fromLine = expected.lines
            state.from = expected.bytes
            state.lines = window.lines
            state.bytes = window.bytes
            if !added.isEmpty {
                state.bytes = try appendResources(&added, toList: id, at: window.lines, total: record.total,
                                                  sharing: sharing,
                                                  failpoints: ("pages.tabled", "pages.queued", "pages.committed"))
                state.lines += added.count
            }
            try appendPageState(state, ofList: id)
            return added.count
        } }
    }

    /// Appends `added` to list `id` as its resources `first`, `first + 1`, …, in the edit lock and the add lock
    /// the caller holds: the commit a page of a paged list and a page's links (CrawlAppend.swift) share. A
    /// record with an empty id gets its job's name, as in a manifest; URLs other jobs name are marked shared.
    /// The range goes to the edit journal, the records to the resource table, their jobs to the queue as a
    /// batch of their own behind every other, and their numbers to the list's order, which commits the edit.
    /// `total`: the list's own. Returns the table's size after. `failpoints`: the crash points hit between the
    /// steps, each caller's own.
    func appendResources(_ added: inout [JobRecord], toList id: String, at first: Int, total: Int,
                         sharing: URLSharing,
                         failpoints: (tabled: StaticString, queued: StaticString, committed: StaticString))
        throws(SpoolError) -> Int {
        let numbers = Array(first..<(first + added.count))
        for (offset, number) in numbers.enumerated() where added[offset].id.isEmpty {
            added[offset].id = JobName(list: id, index: number).raw
        }
        try sharing.share(&added)
        try journal(String(first) + "-" + String(first + numbers.count), ofList: id)
        let tableBytes = try appendToTable(added.flatMap { $0.encoded() }, ofList: id)
        Failpoint.hit(failpoints.tabled)
        let jobs = zip(numbers, added).map { NewJob(name: JobName(list: id, index: $0), record: $1) }
        try enqueue(jobs, lists: [], tables: false)
        Failpoint.hit(failpoints.queued)
        do { try appendToOrder(numbers, ofList: id, total: total) } catch {
            throw SpoolError(.io, "cannot add to the order of list \(id)", cause: error)
        }
        Failpoint.hit(failpoints.committed)
        return tableBytes
    }

    /// `enqueue(_:lists:)` with the choice of resource tables (see `enqueue(next:lists:tables:)`).
    func enqueue(_ jobs: [NewJob], lists: [ListRecordFile], tables: Bool) throws(SpoolError) {
        var iterator = jobs.makeIterator()
        _ = try spool.enqueue(next: { iterator.next() }, lists: lists, tables: tables)
    }

    /// The resources of list `id` that are in its order and come at or after the start of the page
    /// `state` recorded, and how many lines and bytes the table has in whole lines: a read of the
    /// table's end, not of the table. When the table does not match the log (fsck rebuilt it), the
    /// whole table is read instead.
    private func recentResources(ofList id: String, since state: PageState, total: Int) throws(SpoolError)
        -> (records: [JobRecord], lines: Int, bytes: Int) {
        let path = spool.lists.resourceTablePath(ofList: id)
        var tail: [UInt8] = []
        var consistent = false
        if let fd = try? FileDescriptor.open(path, .readOnly) {
            defer { fd.closeQuietly() }
            if let size = try? Int(fd.status().size), size >= state.bytes, state.from <= state.bytes {
                tail = [UInt8](repeating: 0, count: size - state.from)
                let count = (try? tail.withUnsafeMutableBytes { buffer in
                    Result { () throws(Errno) in try fd.read(at: state.from, into: buffer) }
                }.get()) ?? -1
                consistent = count == tail.count
            }
        } else {
            consistent = state.bytes == 0
        }
        var records: [JobRecord] = []
        var firstLine = state.fromLine
        var bytes = state.from
        if consistent {
            let whole = tail.lastIndex(of: 0x0A).map { tail[...$0] } ?? []
            bytes += whole.count
            for line in whole.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
                guard let decoded = JSON.decode(JobRecord.self, from: line) else {
                    consistent = false
                    break
                }
                records.append(decoded)
            }
            if consistent && firstLine + records.count < state.lines { consistent = false }
        }
        if !consistent {
            records = try editableTable(ofList: id)
            bytes = (try? FileSystem.stat(path)).map { Int($0.size) } ?? 0
            firstLine = min(state.fromLine, records.count)
            records.removeFirst(firstLine)
        }
        let lines = firstLine + records.count
        // Lines past the page last recorded were added by edits since, or by a page whose append was
        // killed before its commit (then they are in no order): only the order knows which.
        if lines > state.lines || !consistent {
            let indexes = order(ofList: id, total: total).indexes(atLeast: lines)
            records = records.enumerated().filter { indexes[firstLine + $0.offset] >= 0 }.map(\.element)
        }
        return (records, lines, bytes)
    }
}
