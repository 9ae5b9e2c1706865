import FarmSpool
import FarmTestSupport
import Testing

/// An add's job files are empty, so the table is where a claim reads every record: each line must be
/// found, whatever the order of the reads and wherever the scan's chunks end.
@Suite struct TableRecordsTests {
    /// 20,000 lines of about 50 bytes: the scan reads 256 KiB at a time, and each chunk but the last ends inside
    /// a block of 1,024 lines, so a record read there before the rest is scanned caches that block cut short.
    @Test func everyLineIsFoundReadInOrderAcrossTheScansChunks() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        let (_, jobs) = SpoolFixtures.jobs(20000)
        try spool.enqueue(jobs, lists: [])
        let records = TableRecords(spool: spool)
        let missing = jobs.filter { records.record(of: $0.name) != $0.record }.map(\.name.index)
        #expect(missing.isEmpty, "\(missing.count) records not found, the first: \(missing.prefix(5))")
    }

    /// What the worker does: claims every job of an add's batch, each read from the table.
    @Test func everyJobOfAnAddIsClaimedWithItsRecord() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        let (_, jobs) = SpoolFixtures.jobs(20000)
        try spool.enqueue(jobs, lists: [])
        let claimer = Claimer(spool: spool)
        var claimed = 0
        while let claim = try claimer.claim() {
            #expect(claim.record == jobs[claim.job.index].record)
            claimed += 1
        }
        #expect(claimed == jobs.count)
        #expect(SpoolFixtures.corruptFiles(spool).isEmpty)
    }
}
