import FarmDedup
import FarmJSON
import FarmSpool
import FarmSystem
import SystemPackage

/// Where an edit put a resource, or took it from: its index before and after (nil where it had none).
public struct EditedResource: Sendable, Equatable {
    public let id: String
    public let from: Int?
    public let to: Int?
}

extension Lists {
    static let editLockSuffix = ".lock"
    static let editJournalSuffix = ".edit"
    /// What an edit stages beside its list: `<list>.order.new`, `<list>.job.new` (see `finishEdit`).
    static let stagedSuffix = ".new"
    static let stagedJobSuffix = ".job" + stagedSuffix

    /// Whether `name` in lists/ is one of the files edits keep: an order, an edit lock, a journal.
    package static func isEditFile(_ name: String) -> Bool {
        let suffixes = [ListFiles.orderSuffix, editLockSuffix, editJournalSuffix, ListFiles.orderSuffix + stagedSuffix, stagedJobSuffix]
        for suffix in suffixes where name.hasSuffix(suffix) {
            return ListID.isValid(String(name.dropLast(suffix.count)))
        }
        return false
    }

    /// `lists/<list>.lock`: held for the whole of an edit of that list.
    func editLockPath(ofList id: String) -> String { spool.path(.lists, id + Self.editLockSuffix) }
    /// `lists/<list>.edit`: the job number an edit adds or removes, written before it commits.
    func editJournalPath(ofList id: String) -> String { spool.path(.lists, id + Self.editJournalSuffix) }

    /// `farm item add`: a new resource at `position` of list `id` (its end when nil). Returns where it went.
    /// A record with an empty id gets its job's name, as a manifest's resource without one (`farm sync`).
    /// Throws `.refused` (nothing changed) for a duplicate id or a position out of range.
    public func addResource(_ record: JobRecord, toList id: String, at position: Int?) throws(SpoolError)
        -> EditedResource {
        // Under the add lock, as every way of adding a job (URLSharing.swift): the job of its URL marked own
        // is demoted before this one is queued.
        let sharing = URLSharing(spool)
        return try sharing.lockingAdds { () throws(SpoolError) in try editing(id) { (edit: inout ListEditing) throws(SpoolError) in
            var record = record
            if record.id.isEmpty { record.id = JobName(list: id, index: edit.table.count).raw }
            var shared = [record]
            try sharing.share(&shared)
            record = shared[0]
            let position = position ?? edit.order.count
            guard (0...edit.order.count).contains(position) else {
                throw SpoolError(.refused, "position \(position) is out of range: list has \(edit.order.count) "
                    + "resource(s), so a new one goes at 0 to \(edit.order.count)")
            }
            guard edit.index(ofID: record.id) == nil else {
                throw SpoolError(.refused, "the list already has a resource with id \(record.id)")
            }
            let number = edit.table.count
            try edit.journal(number)
            try edit.appendToTable(record)
            let job = JobName(list: id, index: number)
            // At the end it queues behind the rest, as if added with the list; anywhere else ahead of them.
            let atEnd = position == edit.order.count
            let shard = atEnd ? spool.freshShard() : spool.priorityShard(position)
            try queueNew(job, in: shard)
            edit.order.insert(number, at: position)
            try edit.commit()
            return EditedResource(id: record.id, from: nil, to: position)
        } }
    }

    /// `farm item rm`: removes the resource with id `itemID` from list `id`: its job ends wherever it is
    /// and its outputs are deleted. Throws `.refused` (nothing changed) when the list has no such id.
    public func removeResource(id itemID: String, fromList id: String) throws(SpoolError) -> EditedResource {
        try editing(id) { (edit: inout ListEditing) throws(SpoolError) in
            guard let index = edit.index(ofID: itemID) else {
                throw SpoolError(.refused, "the list has no resource with id \(itemID)")
            }
            let number = edit.order.numbers[index]
            try edit.journal(number)
            _ = edit.order.remove(at: index)
            try edit.commit()
            try purge(JobName(list: id, index: number))
            return EditedResource(id: itemID, from: index, to: nil)
        }
    }

    /// `farm item move`: moves the resource with id `itemID` to `position`; the others shift. A queued
    /// resource moved ahead is queued ahead of the list's others. Throws `.refused` (nothing changed)
    /// for an unknown id or a position out of range.
    public func moveResource(id itemID: String, inList id: String, to position: Int) throws(SpoolError)
        -> EditedResource {
        try editing(id) { (edit: inout ListEditing) throws(SpoolError) in
            guard let index = edit.index(ofID: itemID) else {
                throw SpoolError(.refused, "the list has no resource with id \(itemID)")
            }
            guard (0..<edit.order.count).contains(position) else {
                throw SpoolError(.refused, "position \(position) is out of range: the list's resources go from 0 "
                    + "to \(edit.order.count - 1)")
            }
            let number = edit.order.remove(at: index)
            edit.order.insert(number, at: position)
            try edit.commit()
            if position < index { prioritize(JobName(list: id, index: number), at: position) }
            return EditedResource(id: itemID, from: index, to: position)
        }
    }

    /// Runs `body` on list `id` under its edit lock, once what an edit killed before its end left is
    /// finished (see `finishEdit`).
    private func editing<T>(_ id: String, _ body: (inout ListEditing) throws(SpoolError) -> T) throws(SpoolError) -> T {
        try lockingList(id) { () throws(SpoolError) in
            guard let record = spool.list(id) else { throw SpoolError(.refused, "no list \(id) in the spool") }
            var edit = try ListEditing(spool: spool, list: id, total: record.total)
            return try body(&edit)
        }
    }

    /// Runs `body` under the edit lock of list `id`, once what an edit killed before its end left is
    /// finished (see `finishEdit`); the journal of what `body` did goes once it returns, and whatever it
    /// did before it threw is undone.
    func lockingList<T>(_ id: String, _ body: () throws(SpoolError) -> T) throws(SpoolError) -> T {
        let lock: FileDescriptor
        do {
            lock = try FileDescriptor.open(editLockPath(ofList: id), .readOnly, options: [.create], permissions: 0o600)
            try lock.lock()
        } catch {
            throw SpoolError(.io, "cannot lock list \(id) for an edit", cause: error)
        }
        defer { lock.closeQuietly() }
        guard let record = spool.list(id) else { throw SpoolError(.refused, "no list \(id) in the spool") }
        try finishEdit(ofList: id, total: record.total)
        do {
            let result = try body()
            try? FileSystem.unlink(editJournalPath(ofList: id))
            return result
        } catch {
            // Whatever it did before it failed is undone now, not at the next edit.
            try? finishEdit(ofList: id, total: record.total)
            throw error
        }
    }

    /// Finishes an edit of list `id` killed before its end, from its journal: a job number it added or
    /// removed (`N`, or `N-M` for the numbers N..<M a page added) that the committed order does not hold
    /// has its job and outputs removed (the add never happened, or the removal did). Called under the
    /// list's edit lock, and by `recover()`.
    func finishEdit(ofList id: String, total: Int) throws(SpoolError) {
        try? FileSystem.unlink(spool.lists.orderPath(ofList: id) + Self.stagedSuffix)
        try? FileSystem.unlink(spool.path(.lists, id + Self.stagedJobSuffix))
        let journal = editJournalPath(ofList: id)
        guard let bytes = try? FileSystem.readFile(journal) else { return }
        let bounds = String(decoding: bytes, as: UTF8.self).split(separator: "-").compactMap { Int($0) }
        if bounds.count == 1 || bounds.count == 2, let first = bounds.first, first >= 0,
           case let end = bounds.count == 2 ? bounds[1] : first + 1, end >= first {
            let indexes = order(ofList: id, total: total).indexes(atLeast: end)
            for number in first..<end where indexes[number] < 0 {
                try purge(JobName(list: id, index: number))
            }
            // An append (a page, a recursive list's links: the only edits journaled as a range) undone whole
            // leaves no line either: a recursive list takes its table for the set of URLs it has
            // (CrawlAppend.swift), and a line of a link that never entered the list would keep it out.
            if bounds.count == 2, end > first, (first..<end).allSatisfy({ indexes[$0] < 0 }) {
                try cutTable(ofList: id, toLines: first)
            }
        }
        // A first edit undone (no order yet): the table's lines past the list's total are that edit's own,
        // named by no order; they go, or the table is longer than its list (fsck's list-table; bin/crashstates
        // found it after an `item add` killed between its table line and its commit).
        if !FileSystem.exists(spool.lists.orderPath(ofList: id)) { try cutTable(ofList: id, toLines: total) }
        try? FileSystem.unlink(journal)
    }

    /// Cuts the resource table of list `id` back to its first `lines` lines, durably; a shorter one is left.
    private func cutTable(ofList id: String, toLines lines: Int) throws(SpoolError) {
        let path = spool.lists.resourceTablePath(ofList: id)
        guard let bytes = try? FileSystem.readFile(path, limit: Int.max) else { return }
        var seen = 0
        var end = 0
        while end < bytes.count, seen < lines {
            if bytes[end] == 0x0A { seen += 1 }
            end += 1
        }
        guard seen == lines, end < bytes.count else { return }
        do {
            let fd = try FileDescriptor.open(path, .writeOnly)
            defer { fd.closeQuietly() }
            try fd.truncate(to: end)
            try fd.sync()
        } catch {
            throw SpoolError(.io, "cannot cut the resource table of list \(id) back to its \(lines) line(s)", cause: error)
        }
    }

    /// The job numbers an edit of list `id` under way now adds or removes (its journal, while its editor
    /// holds the lock): in no settled state yet, so fsck judges none of them. Nil when no edit runs.
    package func editInFlight(ofList id: String) -> Range<Int>? {
        guard let lock = try? FileDescriptor.open(editLockPath(ofList: id), .readOnly) else { return nil }
        defer { lock.closeQuietly() }
        guard (try? lock.tryLock(shared: true)) == false,
              let bytes = try? FileSystem.readFile(editJournalPath(ofList: id)) else { return nil }
        let bounds = String(decoding: bytes, as: UTF8.self).split(separator: "-").compactMap { Int($0) }
        guard let first = bounds.first, first >= 0, bounds.count <= 2 else { return nil }
        let end = bounds.count == 2 ? bounds[1] : first + 1
        return end >= first ? first..<end : nil
    }

    /// Finishes or undoes what processes killed half-way left: the batches of adds (see "Add" in
    /// FarmSpool's PROTOCOL.md), the edits of lists, and after a reboot the claims and partials the power cut left
    /// (Redo.swift). Idempotent and safe while other processes work; run by `add`,
    /// `start`, the supervisor and `farm recover`.
    @discardableResult
    public func recover() throws(SpoolError) -> Recovery {
        var report = try spool.recoverBatches()
        report.editsFinished = try finishEdits()
        report.claimsOfAnEarlierBoot = try releaseClaimsOfAnEarlierBoot()
        report.partialsCutBack = cutPartialsBackToTheDisk()
        return report
    }

    /// Finishes the edits killed before their end (see `finishEdit`) of every list whose edit lock is
    /// free: a list being edited now is its editor's to finish. Returns how many it finished.
    func finishEdits() throws(SpoolError) -> Int {
        var finished = 0
        for name in FileSystem.names(spool.lists.folder) where name.hasSuffix(Self.editJournalSuffix) {
            let id = String(name.dropLast(Self.editJournalSuffix.count))
            guard ListID.isValid(id), let record = spool.list(id),
                  let lock = try? FileDescriptor.open(editLockPath(ofList: id), .readOnly, options: [.create],
                                                      permissions: 0o600) else { continue }
            defer { lock.closeQuietly() }
            guard (try? lock.tryLock()) == true else { continue }
            try finishEdit(ofList: id, total: record.total)
            finished += 1
        }
        return finished
    }

    /// Removes the job `job` from wherever it is (queued, claimed, finished) with its outputs, partial
    /// bytes and sidecar. A claim taken away ends the owner's transfer: its next lease renewal finds the
    /// name gone. Looks until the job is in no place twice over: a job moving between places while
    /// they are read is found on the second look.
    package func purge(_ job: JobName) throws(SpoolError) {
        var misses = 0
        var url: String?
        // Where it was delivered (SPEC §12): its record goes with its file.
        let delivered = spool.sidecars.last(job, finished: [.done])?.delivered
        while misses < 2 {
            if let path = place(of: job) {
                guard let trash = try spool.moveToRemoved(path, job: job) else {
                    continue  // it moved on: look again
                }
                url = url ?? spool.jobURL(atPath: trash)
                try? FileSystem.unlink(trash)
                misses = 0
            } else {
                misses += 1
            }
        }
        // An edit taken up again after its removal was cut short finds no job file to read the URL from:
        // the list's table keeps every line it ever had, so its blob's URL record still goes with it.
        if url == nil, let table = spool.lists.resources(ofList: job.list), job.index < table.count {
            url = table[job.index].url
        }
        removeOutputs(of: job, url: url)
        if let delivered { Deliveries(spool: spool).remove(delivered, of: job) }
        Dedup(spool).dropPartials(of: job, url: url)
        spool.sidecars.remove(job)
    }

    /// Deletes the outputs of `job`, whose URL is `url` when the caller knows it (the folder of its
    /// list is read: removals are rare).
    public func removeOutputs(of job: JobName, url: String? = nil) {
        let directory = spool.outputDirectory(ofList: job.list)
        for output in spool.outputsByIndex(ofList: job.list)[job.index] ?? [] {
            try? Dedup(spool).removeOutput(directory + "/" + output, url: url)
        }
    }

    /// Where the file of `job` is now, looked for in the order jobs move (queue, active/, done/, failed/);
    /// nil when it is nowhere.
    package func place(of job: JobName) -> String? {
        for batch in FileSystem.names(spool.queue) where !batch.hasPrefix(".") {
            for shard in FileSystem.names(spool.path(.queue, batch)) where !shard.hasPrefix(".") {
                let path = spool.path(.queue, batch, shard, job.raw)
                if FileSystem.exists(path) { return path }
            }
        }
        let prefix = job.raw + "@"
        if let name = spool.claimedNames().first(where: { ActiveName($0).map { $0.job.raw + "@" == prefix } ?? false }) {
            return spool.path(.active, name)
        }
        for outcome in [Outcome.done, .failed] where FileSystem.exists(spool.finishedPath(job, outcome)) {
            return spool.finishedPath(job, outcome)
        }
        return nil
    }

    /// Whether job number `job.index` is one of its list's resources now (false for one removed, or
    /// added by an edit that did not commit).
    public func isMember(_ job: JobName) -> Bool {
        guard let record = spool.list(job.list) else { return false }
        return order(ofList: job.list, total: record.total).index(of: job.index) != nil
    }

    /// Moves the queued job `job` into the priority shard of `position`; a job not queued is left alone.
    func prioritize(_ job: JobName, at position: Int) {
        guard let path = place(of: job), spool.contains(path, in: .queue) else { return }
        _ = try? spool.moveToQueue(path, job: job, shard: spool.priorityShard(position))
    }

    /// Writes the new job file of `job` into `shard`: made beside its list (under its edit lock), then renamed
    /// in. It is empty (one mknod), as an add's: its record is its line of the list's resource table, which the
    /// edit appended and synced before (`Spool.jobRecord(atPath:)`, the claim's `load`). A copy of that line
    /// here would need a sync of its own before the rename, or a power cut could keep the name without its
    /// bytes, and that sync would protect nothing the line does not (bin/crashstates --without-sync edit-job
    /// found nothing, under ext4's model or POSIX's).
    private func queueNew(_ job: JobName, in shard: String) throws(SpoolError) {
        let staged = spool.path(.lists, job.list + Self.stagedJobSuffix)
        do {
            try FileSystem.createEmptyFile(staged)
        } catch {
            throw SpoolError(.io, "cannot write the job of a new resource", cause: error)
        }
        guard try spool.moveToQueue(staged, job: job, shard: shard) else {
            throw SpoolError(.io, "the job of a new resource vanished from \(spool.lists.folder)")
        }
        // The shard and its batch may be new (moveToQueue made them): each folder's own name is synced in
        // its parent too, up to queue/, or a power cut could keep the job in a folder no path leads to
        // (an acknowledged add undone: fsync promises a folder's entries, not the folder's name).
        var folder = shard
        while folder.hasPrefix(spool.queue + "/") {
            try? FileSystem.syncDirectory(folder)
            folder = String(folder[..<(folder.lastIndex(of: "/") ?? folder.endIndex)])
        }
        try? FileSystem.syncDirectory(spool.queue)
        spool.control.ringBell()
    }
}

/// One edit in progress: the list's committed order and resource table, read under its edit lock.
struct ListEditing {
    let spool: Spool
    let list: String
    var order: ListOrder
    /// Every resource the list ever had, by job number (a removed one's line stays).
    var table: [JobRecord]

    init(spool: Spool, list: String, total: Int) throws(SpoolError) {
        self.spool = spool
        self.list = list
        order = Lists(spool).order(ofList: list, total: total)
        table = try Lists(spool).editableTable(ofList: list)
    }

    /// The index of the resource whose id is `id`; nil when the list has none.
    func index(ofID id: String) -> Int? {
        order.numbers.firstIndex { $0 < table.count && table[$0].id == id }
    }

    /// Records, durably, the job number this edit adds or removes (see `Spool.finishEdit`).
    func journal(_ number: Int) throws(SpoolError) {
        try Lists(spool).journal(String(number), ofList: list)
    }

    /// Appends a resource's line to the table, durably.
    mutating func appendToTable(_ record: JobRecord) throws(SpoolError) {
        try Lists(spool).appendToTable(record.encoded(), ofList: list)
        table.append(record)
    }

    /// Commits the edit: the new order replaces the old in one rename; the journal goes after it.
    func commit() throws(SpoolError) {
        do { try Lists(spool).writeOrder(order, ofList: list) } catch {
            throw SpoolError(.io, "cannot write the new order of list \(list)", cause: error)
        }
        Failpoint.hit("edit.committed")
    }
}

extension Lists {
    /// Records, durably, the job numbers an edit of list `id` adds or removes: `N`, or `N-M` for N..<M
    /// (see `finishEdit`).
    func journal(_ numbers: String, ofList id: String) throws(SpoolError) {
        do {
            let fd = try FileDescriptor.open(editJournalPath(ofList: id), .writeOnly, options: [.create, .truncate],
                                             permissions: 0o600)
            defer { fd.closeQuietly() }
            try fd.write(contentsOf: Array(numbers.utf8))
            try fd.sync()
            // The journal's name too (fsync keeps a file's bytes, its folder keeps its name): a power cut
            // that kept the edit's table lines but not the journal that says to undo them leaves the
            // table longer than the list, which no recovery looks at.
            try FileSystem.syncDirectory(spool.lists.folder)
        } catch {
            throw SpoolError(.io, "cannot write the journal of an edit of list \(id)", cause: error)
        }
    }

    /// Appends whole lines to the resource table of list `id`, durably (a line cut short by a writer
    /// killed mid-append is cut off first); returns the table's size after them.
    @discardableResult
    func appendToTable(_ lines: [UInt8], ofList id: String) throws(SpoolError) -> Int {
        do {
            return try appendDurably(lines, to: spool.lists.resourceTablePath(ofList: id), cuttingPartialLine: true)
        } catch {
            throw SpoolError(.io, "cannot add to the resource table of list \(id)", cause: error)
        }
    }

    /// The resource table of list `id` for an edit: its lines as records, a last line cut short by a
    /// writer killed mid-append truncated away first.
    func editableTable(ofList id: String) throws(SpoolError) -> [JobRecord] {
        let path = spool.lists.resourceTablePath(ofList: id)
        guard var bytes = try? FileSystem.readFile(path, limit: 1 << 34) else {
            throw SpoolError(.refused, "list \(id) has lost the table of its resources; farm fsck tells what else it lost")
        }
        if let last = bytes.last, last != 0x0A {
            let end = (bytes.lastIndex(of: 0x0A) ?? -1) + 1
            do {
                let fd = try FileDescriptor.open(path, .writeOnly)
                defer { fd.closeQuietly() }
                try fd.truncate(to: end)
            } catch {
                throw SpoolError(.io, "cannot repair the resource table of list \(id)", cause: error)
            }
            bytes.removeSubrange(end...)
        }
        var records: [JobRecord] = []
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
            guard let record = JSON.decode(JobRecord.self, from: line) else {
                throw SpoolError(.corrupt, "line \(records.count + 1) of the resource table of list \(id) does not parse")
            }
            records.append(record)
        }
        return records
    }
}
