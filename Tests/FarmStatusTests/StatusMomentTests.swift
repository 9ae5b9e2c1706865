import FarmJSON
import FarmLists
import FarmSpool
import FarmSystem
@testable import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// SPEC §4 at the level of the spool: a status document is one moment (its counts say what its rows say,
/// each job counted once), and a claimed resource's `changed` is the time of its claim until its owner
/// says another status: lease renewals and an earlier owner's sidecar do not move it.
@Suite struct StatusMomentTests {
    private func row(_ fixture: StatusFixture, _ list: String, _ index: Int) throws -> ResourceStatus {
        let view = try #require(ListView.build(fixture.spool, listID: list))
        return try #require(view.resources?[index])
    }

    @Test func aClaimShowsItsTimeThroughRenewalsAndAnEarlierOwnersSidecar() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 2)
        let claim = try #require(try Claimer(spool: fixture.spool).claim())
        let index = claim.job.index
        let atClaim = try row(fixture, list, index)
        #expect(atClaim.status == .downloading && atClaim.text == "Downloading 0%")
        #expect(try #require(atClaim.changed) >= fixture.spool.list(list)?.added ?? "")

        // Renewals move the job file's ctime (the lease), a few milliseconds apart: not its `changed`.
        for _ in 0..<3 {
            Thread.sleep(forTimeInterval: 0.01)
            try fixture.spool.renew(claim)
            #expect(try row(fixture, list, index).changed == atClaim.changed)
        }

        // A sidecar left by an earlier owner of the job (handed back since, then claimed again) is not
        // this claim's: neither its status nor its time nor its bytes show.
        try fixture.writeRawSidecar(list, index, """
            {"attempts":1,"bytes":5,"changed":"2026-11-22T10:00:00.000Z","owner":"1-bbbbbbbbbbbbbbbb","size":5,\
            "status":"rendering"}
            """)
        let stale = try row(fixture, list, index)
        #expect(stale.status == .downloading && stale.changed == atClaim.changed && stale.bytes == 0)
    }

    @Test func theCountsOfAListViewAreThoseOfItsRows() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 3)
        // Its outcome kept in progress/ (no extended attributes here) just before the completion rename:
        // still in active/, already done to look at.
        try fixture.activate(list, 0)
        let outcome = Sidecar(status: .done, bytes: 7, size: 7, changed: "2026-11-22T10:00:01.000Z")
        try fixture.writeSidecar(list, 0, outcome)
        try fixture.finish(list, 1)

        let view = try #require(ListView.build(fixture.spool, listID: list))
        #expect(view.resources?.map(\.status) == [.done, .done, .queued])
        #expect((view.queued, view.active, view.done, view.failed) == (1, 0, 2, 0))
        #expect(view.progress == 2.0 / 3 && view.state == .downloading)
    }

    @Test func aRowReadAfterItsJobLeftActiveShowsWhereItWent() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 2)
        let name = { (index: Int) in JobName(list: list, index: index).raw + "@" + StatusFixture.owner }
        // Seen in active/ by the view's readdir, then completed (its progress sidecar deleted) or handed
        // back before its row is read.
        try fixture.finish(list, 0)
        try fixture.activate(list, 1)
        try fixture.handBack(list, 1)

        let done = ListView.resource(fixture.spool, JobName(list: list, index: 0), at: 0, table: nil,
                                     place: .active(name(0)), queued: "2026-11-22T10:00:00.000Z")
        #expect(done.status == .done && done.changed != "2026-11-22T10:00:00.000Z")
        let queued = ListView.resource(fixture.spool, JobName(list: list, index: 1), at: 1, table: nil,
                                       place: .active(name(1)), queued: "2026-11-22T10:00:00.000Z")
        #expect(queued.status == .queued)
        let handedBack = try #require(fixture.spool.handedBack(JobName(list: list, index: 1)))
        #expect(queued.changed == Timestamp.iso8601(handedBack))
    }

    @Test func aWindowOfAShortListCountsWhatItShows() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 3)
        // The summary the caller holds is older than the window: it has not seen the completion yet.
        let older = try #require(StatusScan.summary(fixture.spool).list(id: list))
        try fixture.finish(list, 0)
        try fixture.activate(list, 1)

        let window = try #require(ListWindows().window(fixture.spool, listID: list, offset: 0, limit: 2, counts: older))
        #expect(window.resources?.map(\.status) == [.done, .downloading])
        #expect((window.queued, window.active, window.done, window.failed) == (1, 1, 1, 0))
        #expect(window.progress == 1.0 / 3 && window.state == .downloading)
    }

    @Test func aJobSeenInActiveAndInDoneCountsOnceWhereItWent() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 2)
        let record = try #require(fixture.spool.list(list))
        // A scan (or the watcher after a rescan) saw job 0 in active/, then in done/<list>.
        var jobs = ListJobs()
        jobs.active.insert(0)
        jobs.done.insert(0)
        let document = StatusScan.document(records: [list: record], jobs: [list: jobs],
                                           workers: Workers(desired: 1, running: 1), paused: false, disk: nil,
                                           updated: "2026-11-22T10:00:00.000Z")
        let counted = try #require(document.list(id: list))
        #expect((counted.total, counted.queued, counted.active, counted.done, counted.failed) == (2, 1, 0, 1, 0))
        #expect(counted.progress == 0.5 && counted.state == .downloading)
    }
}
