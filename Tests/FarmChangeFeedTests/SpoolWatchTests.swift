import FarmSpool
import FarmChangeFeed
import FarmTestSupport
import Testing

/// The live views' inotify watch reports finished jobs too: a job shorter than a sidecar tick has no
/// progress sidecar, and arrives in done/<list>/ with its outcome record. So does its polling form.
@Suite struct SpoolWatchTests {
    @Test(arguments: [false, true]) func reportsJobsLandingInDoneAndFailedListsOldAndNew(polling: Bool) throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let (list, jobs) = SpoolFixtures.jobs(4)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        let claimer = Claimer(spool: spool)
        func finish(_ outcome: Outcome) throws -> String {
            let claim = try #require(try claimer.claim())
            try spool.complete(claim, outcome, record: Sidecar(status: outcome == .done ? .done : .error, changed: "t"))
            return claim.job.raw
        }
        // done/<list> exists before the watch; failed/<list> appears after it.
        _ = try finish(.done)
        let watch = try #require(SpoolWatch(spool: spool, poll: polling))
        let done = try finish(.done)
        #expect(poll { watch.drain().jobs.contains(done) })
        _ = try finish(.failed)  // makes failed/<list>: this drain reads its creation and watches it
        _ = watch.drain()
        let failed = try finish(.failed)
        #expect(poll { watch.drain().jobs.contains(failed) })
    }
}
