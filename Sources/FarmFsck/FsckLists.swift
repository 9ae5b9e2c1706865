import FarmJSON
import FarmLists
import FarmSpool
import FarmSystem
import SystemPackage

// The lists of fsck (see SpoolCheck.swift): records that parse, resource tables of `total` lines that parse,
// committed lists published, nothing else in lists/.
extension FsckRun {
    /// Reads every list record and resource table, published or still in a committed batch.
    func readLists() throws(SpoolError) {
        var records: [String: String] = [:], tables: [String: String] = [:]
        // Committed batches first: a record published meanwhile is then seen in lists/.
        for batch in try entries(spool.queue) where batch.isDirectory {
            let pending = spool.lists.pending(ofBatch: batch.name)
            guard FileSystem.exists(pending) else { continue }
            found(.unpublishedList, pending, "batch \(batch.name) is queued but its lists were never published") {
                [spool] () throws(SpoolError) in
                try spool.publishLists(ofBatch: batch.name)
                return .made
            }
            for name in try names(pending) { Self.file(name, in: pending, records: &records, tables: &tables) }
        }
        let folder = spool.lists.folder
        for name in try names(folder) where !Self.file(name, in: folder, records: &records, tables: &tables) {
            foreign(spool.path(.lists, name), "not a list record nor a resource table")
        }
        for (id, path) in tables where records[id] == nil {
            foreign(path, "a resource table of no list")
        }
        for (id, path) in records {
            let list = FsckList(id: id)
            lists[id] = list
            list.record = (try? FileSystem.readFile(path)).flatMap { JSON.decode(ListRecord.self, from: $0) }
            if list.record == nil {
                found(.listRecord, path, "the list record does not parse", unrepairable: "its name and source are "
                      + "known nowhere else", repair: nil)
            }
            checkTable(of: list, at: tables[id])
        }
    }

    /// Files a name of lists/ or of a batch's pending lists under `records` or `tables`; false when it
    /// is neither.
    @discardableResult
    private static func file(_ name: String, in directory: String, records: inout [String: String],
                             tables: inout [String: String]) -> Bool {
        if let id = ListFiles.listID(ofRecordName: name) {
            records[id] = directory + "/" + name
        } else if name.hasSuffix(ListFiles.resourceTableSuffix),
                  case let id = String(name.dropLast(ListFiles.resourceTableSuffix.count)), ListID.isValid(id) {
            tables[id] = directory + "/" + name
        } else if Lists.isEditFile(name) || Lists.isPageLog(name) || ListFiles.isRequestFile(name) || ListFiles.isOwnedFile(name)
                    || ListFiles.isConvertedMark(name) || ListFiles.isRobotsFile(name) {
            // an edited list's order, edit lock or journal (ListEdit.swift), a paged list's log, a list's
            // request options, its jobs marked own, its mark of converted links, its hosts' robots.txt
            return true
        } else {
            return false
        }
        return true
    }

    /// Reads the resource table of `list` (at `path`, if it has one): `total` lines, each a job record.
    /// Read a chunk at a time: a list of a million resources has a table of tens of megabytes.
    private func checkTable(of list: FsckList, at path: String?) {
        let tablePath = path ?? spool.lists.resourceTablePath(ofList: list.id)
        var count = 0
        var unreadable: [Int] = []
        let whole: Bool
        do {
            whole = try Self.forEachLine(ofFile: tablePath) { line in
                if JSON.decode(JobRecord.self, from: line) == nil { unreadable.append(count) }
                count += 1
            }
        } catch {
            list.total = list.record?.total
            list.badLines = Array(0..<(list.total ?? 0))
            reportTable(of: list, at: tablePath, "the list has no resource table")
            return
        }
        let edited = FileSystem.exists(spool.lists.orderPath(ofList: list.id))
        let total = edited ? count : list.record?.total ?? count
        list.total = total
        list.badLines = unreadable.filter { $0 < total } + Array(min(count, total)..<total)
        var problems: [String] = []
        if count != total { problems.append("it has \(count) line(s) for \(total) resource(s)") }
        if edited { checkOrder(of: list, lines: count) }
        if let first = unreadable.first {
            problems.append("\(unreadable.count) line(s) do not parse (the first: resource \(first))")
        }
        if !whole { problems.append("its last line is cut short") }
        if !problems.isEmpty { reportTable(of: list, at: tablePath, problems.joined(separator: "; ")) }
    }

    /// The order of an edited list: job numbers of its table, each once. The numbers not in it are its
    /// removed resources.
    private func checkOrder(of list: FsckList, lines: Int) {
        let path = spool.lists.orderPath(ofList: list.id)
        if let size = try? FileSystem.stat(path).size, size % 4 != 0 {
            // What a page's append killed mid-write leaves (see "Pages" in Lists.swift): the next page cuts it off.
            found(.listTable, path, "its last number is cut short", unrepairable: "the list's next page "
                  + "or edit cuts it off", repair: nil)
        }
        let numbers = Lists(spool).order(ofList: list.id, total: 0).numbers
        let members = Set(numbers)
        if members.count != numbers.count || numbers.contains(where: { $0 >= lines }) {
            found(.listTable, path, "the order names a resource twice, or one the table does not have",
                  unrepairable: "the order of the list is known nowhere else", repair: nil)
            return
        }
        list.removed = Set(0..<lines).subtracting(members)
        if let flight = Lists(spool).editInFlight(ofList: list.id) {
            list.inFlight = Set(flight)
            list.removed?.subtract(flight)
        }
    }

    /// Calls `body` with each line of the file at `path`, without its newline, reading a megabyte at a
    /// time; returns whether the file ends with a newline (an empty one does).
    private static func forEachLine(ofFile path: String, _ body: (ArraySlice<UInt8>) -> Void) throws(Errno) -> Bool {
        let fd = try FileDescriptor.open(path, .readOnly)
        defer { fd.closeQuietly() }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var carried: [UInt8] = []  // the start of a line the last chunk cut
        var offset = 0
        while true {
            let count = try chunk.withUnsafeMutableBytes { bytes in
                Result { () throws(Errno) in try fd.read(at: offset, into: bytes) }
            }.get()
            if count == 0 { break }
            offset += count
            var start = 0
            while let newline = chunk[start..<count].firstIndex(of: 0x0A) {
                if carried.isEmpty { body(chunk[start..<newline]) } else {
                    carried += chunk[start..<newline]
                    body(carried[...])
                    carried = []
                }
                start = newline + 1
            }
            carried += chunk[start..<count]
        }
        if carried.isEmpty { return true }
        body(carried[...])
        return false
    }

    private func reportTable(of list: FsckList, at path: String, _ detail: String) {
        guard list.total != nil else {
            found(.listTable, path, detail, unrepairable: "neither the list record nor the table says how many "
                  + "resources the list has", repair: nil)
            return
        }
        found(.listTable, path, detail) { () throws(SpoolError) in try self.rebuildTable(of: list) }
    }

    /// The ranges of the lines of `bytes`, without their newlines; a last line without one counts.
    static func lines(_ bytes: [UInt8]) -> [Range<Int>] {
        var lines: [Range<Int>] = []
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            lines.append(start..<end)
            start = end + 1
        }
        return lines
    }

    /// Writes the resource table of `list` again: each line that parses as it was, each other one
    /// from its job's file where that holds the same record (a page's jobs, and those queued before
    /// add and item add made their job files empty), wherever the job is. Replaced by rename.
    private func rebuildTable(of list: FsckList) throws(SpoolError) -> FsckRepair {
        guard let total = list.total else { return .skipped("the number of resources is unknown") }
        let path = tablePath(of: list.id)
        let old = (try? FileSystem.readFile(path, limit: 1 << 34)) ?? []
        let lines = Self.lines(old)
        var table: [UInt8] = []
        for index in 0..<total {
            if index < lines.count, JSON.decode(JobRecord.self, from: old[lines[index]]) != nil {
                table += old[lines[index]]
                table.append(0x0A)
                continue
            }
            guard let line = jobFileLine(JobName(list: list.id, index: index)) else {
                return .skipped("resource \(index) has no job file that holds its record to rebuild its line from")
            }
            table += line
        }
        try spool.scratch.replace(path, with: table)
        return .made
    }

    /// Where the resource table of list `id` is now: in lists/, else where a committed batch still holds
    /// it, else where it belongs.
    private func tablePath(of id: String) -> String {
        let published = spool.lists.resourceTablePath(ofList: id)
        if FileSystem.exists(published) { return published }
        for batch in FileSystem.names(spool.queue) {
            let path = spool.lists.pendingFile(id, suffix: ListFiles.resourceTableSuffix, ofBatch: batch)
            if FileSystem.exists(path) { return path }
        }
        return published
    }

    /// The record of `job` as its job file holds it (one line, newline included), from wherever the
    /// second walk found it; nil when it was found nowhere or does not parse.
    private func jobFileLine(_ job: JobName) -> [UInt8]? {
        for location in locations[job] ?? [] {
            guard let bytes = try? FileSystem.readFile(location.path, limit: 64 << 10), bytes.last == 0x0A,
                  bytes.firstIndex(of: 0x0A) == bytes.count - 1, JSON.decode(JobRecord.self, from: bytes) != nil
            else { continue }
            return bytes
        }
        return nil
    }

    /// The line of resource `index` in the resource table of `list`, newline included; nil when it does
    /// not parse. The table is read again (once): the repairs may have rebuilt it.
    func tableLine(of list: FsckList, _ index: Int) -> [UInt8]? {
        if list.reread == nil {
            let bytes = (try? FileSystem.readFile(tablePath(of: list.id), limit: 1 << 34)) ?? []
            list.reread = (bytes, Self.lines(bytes))
        }
        guard let table = list.reread, index < table.lines.count,
              JSON.decode(JobRecord.self, from: table.bytes[table.lines[index]]) != nil else { return nil }
        return Array(table.bytes[table.lines[index]]) + [0x0A]
    }

    /// Whether list `id` has a record now, published or committed: a list seen as unknown may have been
    /// published since the lists were read.
    func hasList(_ id: String) -> Bool {
        if FileSystem.exists(spool.lists.recordPath(id)) { return true }
        return FileSystem.names(spool.queue).contains {
            FileSystem.exists(spool.lists.pendingFile(id, suffix: ListFiles.recordSuffix, ofBatch: $0))
        }
    }
}
