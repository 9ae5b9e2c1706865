import FarmLists
@testable import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// A finished job's outcome record: on its job file (an extended attribute), never a file of its own;
/// in progress/ only when the file system cannot hold it.
@Suite struct OutcomeTests {
    let dir = TemporaryDirectory()

    private func claimOne(_ spool: Spool) throws -> Claim {
        try #require(try Claimer(spool: spool).claim())
    }

    @Test func theRecordTravelsWithTheJobFileAndNoSidecarFileIsMade() throws {
        let spool = try Spool(root: dir.appending("spool"))
        let (list, jobs) = SpoolFixtures.jobs(1)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        let claim = try claimOne(spool)
        let record = Sidecar(status: .done, bytes: 5, size: 5, kind: "png", file: "/f/0.png", image: "/f/0.png",
                             changed: "2026-11-22T10:00:00.000Z")
        #expect(try spool.complete(claim, .done, record: record))

        let onFile = try #require(spool.sidecars.outcome(atPath: spool.finishedPath(claim.job, .done)))
        #expect(String(decoding: onFile, as: UTF8.self).contains(#""file":"/f/0.png""#))
        #expect(spool.sidecars.last(claim.job) == record)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.progress).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.tmp).isEmpty)
    }

    @Test func aReloadForgetsTheRecordAndOneTooBigForAnAttributeGoesToProgress() throws {
        let spool = try Spool(root: dir.appending("spool"))
        let (list, jobs) = SpoolFixtures.jobs(1)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        try spool.complete(try claimOne(spool), .done,
                           record: Sidecar(status: .done, bytes: 5, kind: "png", file: "/f/0.png", changed: "t0"))
        #expect(try Lists(spool).reload(list: list) == 1)

        // Queued again, the job file carries no record any more.
        let again = try claimOne(spool)
        #expect(spool.sidecars.outcome(atPath: spool.activePath(again.job, again.owner)) == nil)
        // Over the 64 KiB an extended attribute may hold: the record becomes progress/<job>.json.
        let long = String(repeating: "x", count: 70_000)
        let failure = Sidecar(status: .error, error: long, attempts: 3, changed: "t1")
        // complete says so: the worker must not delete it as it deletes a progress sidecar.
        #expect(try spool.complete(again, .failed, record: failure) == false)
        #expect(spool.sidecars.outcome(atPath: spool.finishedPath(again.job, .failed)) == nil)
        #expect(FileManager.default.fileExists(atPath: spool.progress + "/" + again.job.raw + ".json"))
        // Named after its claim there, as a progress sidecar is.
        var named = failure
        named.owner = again.owner.raw
        #expect(spool.sidecars.last(again.job) == named)
    }

    @Test func aReclaimedJobRecordsNothing() throws {
        let spool = try Spool(root: dir.appending("spool"))
        let (list, jobs) = SpoolFixtures.jobs(1)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        let claim = try claimOne(spool)
        #expect(spool.reclaimExpired(lease: -1).count == 1)
        #expect(throws: SpoolError.self) {
            try spool.complete(claim, .done, record: Sidecar(status: .done, changed: "t"))
        }
        #expect(spool.sidecars.last(claim.job) == nil)
        #expect(SpoolFixtures.counts(spool) == [.queued: 1])
    }
}
