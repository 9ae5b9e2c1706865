import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// Claims within one process: order of batches, emptying, what is set aside.
@Suite struct ClaimTests {
    /// A crawl's queue: a small batch for each page. A claimer drains the batches it listed in their order,
    /// and then finds those added meanwhile (which sort after them), and the jobs handed back before any.
    @Test func manySmallBatchesAreDrainedInOrderWithTheOnesAddedMeanwhile() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        var batchOf: [String: Int] = [:]
        func add(_ batches: Range<Int>) throws {
            for number in batches {
                let (list, jobs) = SpoolFixtures.jobs(2, listName: "page \(number)")
                batchOf[list] = number
                try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
            }
        }
        try add(0..<100)
        let claimer = Claimer(spool: spool)
        var order: [Int] = []
        while order.count < 100, let claim = try claimer.claim() {
            order.append(try #require(batchOf[claim.job.list]))
            try spool.complete(claim, .done)
        }
        // Added while the claimer drains the batches it listed: claimed after them.
        try add(100..<200)
        // Handed back: claimed before anything else (queue/0, looked for every 50 ms).
        let handed = try #require(try claimer.claim())
        try spool.release(handed)
        Thread.sleep(forTimeInterval: 0.2)
        let again = try #require(try claimer.claim())
        #expect(again.job == handed.job, "a job handed back comes first")
        order.append(try #require(batchOf[again.job.list]))
        try spool.complete(again, .done)
        while let claim = try claimer.claim() {
            order.append(try #require(batchOf[claim.job.list]))
            try spool.complete(claim, .done)
        }
        #expect(order.count == 400, "every job once")
        #expect(order == order.sorted(), "batch by batch: \(order)")
        #expect(SpoolFixtures.counts(spool) == [.done: 400])
    }

    @Test func claimsEveryJobOnceThenReportsEmpty() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        let (list, jobs) = SpoolFixtures.jobs(2500)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])

        let claimer = Claimer(spool: spool)
        var claimed = Set<JobName>()
        while let claim = try claimer.claim() {
            #expect(claimed.insert(claim.job).inserted)
            #expect(claim.record.url == "http://127.0.0.1:1/\(claim.job.index).jpg")
            try spool.complete(claim, .done)
        }
        #expect(claimed == Set(jobs.map(\.name)))
        #expect(SpoolFixtures.counts(spool) == [.done: 2500])
        // Drained shards and batches are removed, so later claims stay cheap.
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.queue).isEmpty)
        #expect(spool.lists.ids() == [list])
    }

    /// A claim from an add's batch reads its record from the list's table, not from the job file it renamed:
    /// job files rewritten here behind the farm's back (which nothing in the farm does) show which was read.
    /// Jobs past the end of the table, jobs of a list with no table, and jobs handed back read their files.
    @Test func jobsOfAnAddAreReadFromTheirListsTableAndTheRestFromTheirFiles() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        let (list, jobs) = SpoolFixtures.jobs(2500)
        let (other, otherJobs) = SpoolFixtures.jobs(30, listName: "List 2")
        let batch = try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        let otherBatch = try spool.enqueue(otherJobs, lists: [])
        for batch in [batch, otherBatch] {
            for shard in try FileManager.default.contentsOfDirectory(atPath: spool.queue + "/" + batch)
            where !shard.hasPrefix(".") {
                let path = spool.queue + "/" + batch + "/" + shard
                for name in try FileManager.default.contentsOfDirectory(atPath: path) {
                    let job = try #require(JobName(name))
                    try Data(JobRecord(url: "http://file/\(job.index)", id: "f").encoded())
                        .write(to: URL(fileURLWithPath: path + "/" + name))
                }
            }
        }
        try? FileManager.default.removeItem(atPath: spool.lists.resourceTablePath(ofList: other))
        // The table keeps its first 2,000 lines and half of the next: the rest are read from their files.
        let table = spool.lists.resourceTablePath(ofList: list)
        let lines = try Data(contentsOf: URL(fileURLWithPath: table)).split(separator: 0x0A, omittingEmptySubsequences: false)
        try Data((lines[0..<2000].joined(separator: [0x0A]) + [0x0A] + lines[2000].prefix(10)))
            .write(to: URL(fileURLWithPath: table))

        let claimer = Claimer(spool: spool)
        var handedBack: Claim?
        var seen = 0
        while let claim = try claimer.claim() {
            seen += 1
            let fromTable = claim.job.list == list && claim.job.index < 2000 && claim.isFresh
            #expect(claim.record.url == (fromTable ? "http://127.0.0.1:1/\(claim.job.index).jpg"
                                                   : "http://file/\(claim.job.index)"), "\(claim.job)")
            if claim.job == JobName(list: list, index: 5) && handedBack == nil {
                handedBack = claim
                try spool.release(claim)
            } else {
                try spool.complete(claim, .done)
            }
        }
        #expect(seen == 2531)
        #expect(handedBack != nil)
        #expect(SpoolFixtures.counts(spool) == [.done: 2530])
    }

    @Test func spoolIsPrivateAndRefusesForeignDirectories() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let mode = try FileManager.default.attributesOfItem(atPath: spool.root)[.posixPermissions] as? Int
        #expect(mode == 0o700)

        let foreign = dir.appending("photos")
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: foreign + "/holiday.jpg"))
        #expect(throws: SpoolError.self) { try Spool(root: foreign) }
        #expect(!FileManager.default.fileExists(atPath: foreign + "/queue"))
    }

    @Test func handedBackJobsAreClaimedBeforeNewOnes() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        try spool.enqueue(SpoolFixtures.jobs(50).jobs, lists: [])
        let claimer = Claimer(spool: spool)
        let first = try #require(try claimer.claim())
        try spool.release(first)
        let again = try #require(try claimer.claim())
        #expect(again.job == first.job)
        #expect(again.owner != first.owner)
    }

    @Test func corruptAndForeignFilesAreSetAsideAndTheRestGoOn() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        let (list, jobs) = SpoolFixtures.jobs(20)
        let batch = try spool.enqueue(jobs, lists: [])
        let shard = spool.queue + "/" + batch + "/s000000"
        // Job files are read where they hold their records and their list has no table (here it is taken
        // away, so that every claim reads its job file): a claim from a table never reads its job file, and an add's are empty.
        try FileManager.default.removeItem(atPath: spool.lists.resourceTablePath(ofList: list))
        for job in jobs {
            let path = spool.queue + "/" + batch + "/s" + String(format: "%06d", job.name.index / Spool.shardSize)
            try Data(job.record.encoded()).write(to: URL(fileURLWithPath: path + "/" + job.name.raw))
        }
        // A job file whose content is garbage, a file whose name is no job, a stray file in active/.
        let garbled = JobName(list: list, index: 7).raw
        try Data("{\"url\": tru".utf8).write(to: URL(fileURLWithPath: shard + "/" + garbled))
        try Data("hello".utf8).write(to: URL(fileURLWithPath: shard + "/notes.txt"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: spool.active + "/README"))

        let claimer = Claimer(spool: spool)
        var done = 0
        while let claim = try claimer.claim() {
            try spool.complete(claim, .done)
            done += 1
        }
        spool.reclaimExpired(lease: 10)
        #expect(done == 19)
        let corrupt = SpoolFixtures.corruptFiles(spool)
        #expect(corrupt.count == 3)
        #expect(corrupt.contains { $0.hasPrefix(garbled + "@") })
        #expect(corrupt.contains { $0.hasPrefix("notes.txt.") })
        #expect(corrupt.contains { $0.hasPrefix("README.") })
        let log = SpoolFixtures.log(spool)
        #expect(log.contains("job file does not parse"))
        #expect(log.contains("not a job name"))
        #expect(log.split(separator: "\n").count == 3)
    }

    @Test func jobNamesRoundTripAndRejectForeignNames() {
        let list = ListID.of(name: "Set 1.json")
        let name = JobName(list: list, index: 42)
        #expect(JobName(name.raw) == name)
        #expect(JobName(list + ".0")?.index == 0 && JobName(list + ".9999999999")?.index == 9_999_999_999)
        for foreign in ["", "x", list, list + ".", list + ".-1", list + ".01", list + ".1a", "../" + list + ".1",
                        list.uppercased() + ".1", list + ".1@123-abc", list + ".12345678901", list + "x1",
                        String(list.dropFirst()) + "g.1", list + ". 1", list + ".1 "] {
            #expect(JobName(foreign) == nil, "\(foreign) should not parse")
        }
        #expect(ListID.of(name: "Set 1.json") != ListID.of(name: "Set 2.json"))
    }
}
