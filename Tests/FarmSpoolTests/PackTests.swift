import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// Packs (PROTOCOL.md, "Packs"): a shard of an add's batch claimed by one rename, its members worked and ended
/// one by one, its folder sent back whole when its owner is gone; the last shards of a batch claimed job by job.
@Suite struct PackTests {
    private func names(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// A spool with one added list of 300 jobs (19 shards), and a claimer of it.
    private func queued() throws -> (TemporaryDirectory, Spool, Claimer) {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        let (list, jobs) = SpoolFixtures.jobs(300)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        return (dir, spool, Claimer(spool: spool))
    }

    @Test func aPackIsOneShardClaimedByOneRenameAndItsMembersEndOneByOne() throws {
        let (dir, spool, claimer) = try queued()
        defer { _ = dir }
        let taken = try claimer.take(skippingParked: false, packs: true)
        #expect(taken.count == Spool.shardSize)
        let pack = try #require(taken.first?.pack)
        #expect(taken.allSatisfy { $0.pack == pack })
        #expect(taken.map(\.job.index) == Array(0..<16), "in order: \(taken.map(\.job.index))")
        // One folder in active/, holding the pack's jobs, whose names parse as claims of them.
        let folders = names(spool.active)
        #expect(folders.count == 1 && folders[0].hasPrefix(pack + "@"))
        #expect(names(spool.active + "/" + folders[0]).count == 16)
        #expect(spool.claimedNames().count == 16)
        #expect(spool.claimedNames().compactMap(ActiveName.init).map(\.job.index).sorted() == Array(0..<16))
        // Views count its first member as at work, the others as waiting.
        #expect(spool.claimedNames(inFlight: true).compactMap(ActiveName.init).map(\.job.index) == [0])
        #expect(spool.activeJobs(inFlight: true).map(\.job.index) == [0])
        #expect(SpoolFixtures.counts(spool) == [.queued: 284, .active: 16])

        for (number, member) in taken.enumerated() {
            let claim = try #require(spool.load(member, records: claimer.records))
            #expect(claim.pack == pack && claim.job.index == number)
            #expect(spool.holds(claim))
            try spool.renew(claim)
            try spool.complete(claim, .done)
            #expect(!spool.holds(claim))
        }
        // The last member's end removed the folder.
        #expect(names(spool.active).isEmpty)
        #expect(SpoolFixtures.counts(spool) == [.queued: 284, .done: 16])
    }

    @Test func theLastShardsOfABatchAreClaimedJobByJob() throws {
        let (dir, spool, claimer) = try queued()
        defer { _ = dir }
        var sizes: [Int] = []
        var done = Set<JobName>()
        while true {
            let taken = try claimer.take(skippingParked: false, packs: true)
            guard !taken.isEmpty else { break }
            sizes.append(taken.count)
            for member in taken {
                let claim = try #require(spool.load(member, records: claimer.records))
                #expect(done.insert(claim.job).inserted)
                try spool.complete(claim, .done)
            }
        }
        // 11 packs while more than 8 shards were left after each, then 124 jobs one by one (the last shard has 12).
        #expect(sizes == Array(repeating: 16, count: 11) + Array(repeating: 1, count: 124), "\(sizes)")
        #expect(done.count == 300)
        #expect(SpoolFixtures.counts(spool) == [.done: 300])
        #expect(names(spool.active).isEmpty)
    }

    @Test func aDeadOwnersPackGoesBackWholeAndItsJobsAreClaimedOneByOne() throws {
        let (dir, spool, claimer) = try queued()
        defer { _ = dir }
        let taken = try claimer.take(skippingParked: false, packs: true)
        let claims = try taken.map { try #require(spool.load($0, records: claimer.records)) }
        for claim in claims.prefix(3) { try spool.complete(claim, .done) }
        Thread.sleep(forTimeInterval: 0.05)
        // Its lease ran out (a lease of 0): the folder goes back whole, with the 13 members left.
        let back = spool.reclaimExpired(lease: 0.01)
        #expect(Set(back.map(\.index)) == Set(3..<16))
        #expect(names(spool.active).isEmpty)
        #expect(names(spool.queue + "/0") == [try #require(taken.first?.pack)])
        // Its old owner can neither renew nor complete what went back.
        #expect(throws: SpoolError.self) { try spool.renew(claims[3]) }
        #expect(throws: SpoolError.self) { try spool.complete(claims[4], .done) }
        #expect(SpoolFixtures.counts(spool) == [.queued: 297, .done: 3])
        // Handed-back jobs come first, one by one.
        let again = try #require(try claimer.claim())
        #expect(again.pack == nil && (3..<16).contains(again.job.index))
        try spool.complete(again, .done)
        while let claim = try claimer.claim() { try spool.complete(claim, .done) }
        #expect(SpoolFixtures.counts(spool) == [.done: 300])
        #expect(SpoolFixtures.duplicates(in: spool).isEmpty)
    }

    @Test func aMemberTakenFromItsPackIsLostToItsOwnerAlone() throws {
        let (dir, spool, claimer) = try queued()
        defer { _ = dir }
        let claims = try claimer.take(skippingParked: false, packs: true).map {
            try #require(spool.load($0, records: claimer.records))
        }
        // Handed back on its own (its slot stopped before it, or an edit moved it): the rest stay claimed.
        try spool.release(claims[5])
        #expect(!spool.holds(claims[5]))
        #expect(throws: SpoolError.self) { try spool.renew(claims[5]) }
        try spool.renew(claims[6])
        #expect(spool.holds(claims[6]))
        #expect(SpoolFixtures.counts(spool) == [.queued: 285, .active: 15])
        for claim in claims where claim.job.index != 5 { try spool.complete(claim, .done) }
        #expect(names(spool.active).isEmpty)
        #expect(SpoolFixtures.counts(spool) == [.queued: 285, .done: 15])
    }
}
