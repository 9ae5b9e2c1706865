import FarmRecords
import FarmTestSupport
import Testing

/// The resource tables without a spool: written by `ResourceTables` and read by `TableRecords` at the paths they
/// are given (FarmSpool gives them its own), every line found again, in any order of reads.
@Suite struct ResourceTableTests {
    @Test func everyRecordWrittenIsReadBackAtThePathsGiven() throws {
        let dir = TemporaryDirectory()
        let path = { @Sendable (id: String) in dir.path + "/" + id + ".table" }
        let lists = [ListID.of(name: "a.json"), ListID.of(name: "b.json")]
        var written: [JobName: JobRecord] = [:]
        var tables = ResourceTables(path: path)
        // Interleaved lists, and more than a buffer's worth (64 KiB) and a read block's (1,024 lines) of each.
        for index in 0..<3000 {
            for list in lists {
                let job = JobName(list: list, index: index)
                var record = JobRecord(url: "http://h/\(list)/\(index).jpg", id: "r\(index)")
                record.own = index % 3 == 0
                written[job] = record
                try tables.append(record.encoded(), for: job)
            }
        }
        try tables.finish()
        tables.close()
        let records = TableRecords(tablePath: path)
        let jobs = written.keys.sorted { ($0.index % 7, $0.raw) < ($1.index % 7, $1.raw) }
        let missing = jobs.filter { records.record(of: $0) != written[$0] }
        #expect(missing.isEmpty, "\(missing.count) records not read back, the first: \(missing.prefix(3))")
        #expect(records.record(of: JobName(list: lists[0], index: 3000)) == nil)
    }
}
