import FarmDesired
import FarmJSON
import FarmLists
import FarmSpool
import FarmSystem
@testable import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// The summary and the per-list view built from real spool directories, jobs in every state.
@Suite struct StatusScanTests {
    @Test func summaryCountsEveryPlaceAndDerivesTheStates() throws {
        let fixture = try StatusFixture()
        let one = try fixture.addList("Set 1.json", count: 10)
        let two = try fixture.addList("Set 2.json", count: 3)
        let ten = try fixture.addList("Set 10.json", count: 2)
        for index in 0..<3 { try fixture.finish(one, index) }
        try fixture.finish(one, 3, failed: true)
        try fixture.activate(one, 4)
        try fixture.activate(one, 5)
        try fixture.finish(ten, 0)
        try fixture.finish(ten, 1, failed: true)
        try fixture.spool.control.setDesired(Desired(workers: 6))
        try fixture.spool.control.setPaused(true)

        let summary = StatusScan.summary(fixture.spool)
        #expect(summary.lists.map(\.name) == ["Set 1.json", "Set 2.json", "Set 10.json"])
        let first = try #require(summary.list(id: one))
        #expect((first.total, first.queued, first.active, first.done, first.failed) == (10, 4, 2, 3, 1))
        #expect(first.state == .downloading && first.progress == 0.3)
        #expect(summary.list(id: two)?.state == .queuing)
        #expect(summary.list(id: ten)?.state == .finished)
        #expect(summary.paused && summary.workers == Workers(desired: 6, running: 0))
        #expect(!summary.isFinished && summary.failed == 2)
        #expect(summary.lists.allSatisfy { $0.resources == nil })
    }

    @Test func listViewShowsEachResourceFromWhereItsJobIs() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 6)
        // 0: downloading with a known size; 1: active with no sidecar yet; 2: done; 3: failed with a
        // reason; 4: failed with no sidecar; 5: handed back, its old sidecar still there.
        try fixture.activate(list, 0)
        try fixture.writeSidecar(list, 0, Sidecar(status: .downloading, bytes: 4500, size: 10000,
                                                  changed: "2026-11-22T10:00:00.100Z"))
        try fixture.activate(list, 1)
        try fixture.activate(list, 2)
        let image = fixture.spool.files + "/" + list + "/2.png"
        try fixture.writeRawSidecar(list, 2, """
            {"status":"done","bytes":7,"size":7,"kind":"png","file":"\(image)","image":"\(image)",
             "thumb":"\(image).thumb.jpg","attempts":2,"changed":"2026-11-22T10:00:01.000Z"}
            """)
        try fixture.complete(list, 2)
        try fixture.activate(list, 3)
        try fixture.writeSidecar(list, 3, Sidecar(status: .error, error: "HTTP 404", changed: "2026-11-22T10:00:02.000Z"))
        try fixture.complete(list, 3, failed: true)
        try fixture.finish(list, 4, failed: true)
        try fixture.activate(list, 5)
        try fixture.writeSidecar(list, 5, Sidecar(status: .downloading, bytes: 10, size: 100, changed: "x"))
        try fixture.handBack(list, 5)

        let view = try #require(ListView.build(fixture.spool, listID: list))
        let resources = try #require(view.resources)
        #expect(resources.map(\.text) == ["Downloading 45%", "Downloading 0%", "Done", "Error", "Error", "Queueing"])
        #expect(resources.map(\.status) == [.downloading, .downloading, .done, .error, .error, .queued])
        #expect(resources[0].bytes == 4500 && resources[0].size == 10000)
        #expect(resources[0].changed == "2026-11-22T10:00:00.100Z")
        #expect(resources[0].url == "http://127.0.0.1:1/0.jpg" && resources[0].id == "r0" && resources[0].index == 0)
        #expect(resources[1].bytes == 0 && resources[1].size == nil)
        #expect(resources[2].image == image && resources[2].kind == "png" && resources[2].attempts == 2)
        #expect(resources[2].thumb == image + ".thumb.jpg")
        #expect(resources[3].error == "HTTP 404")
        #expect(resources[4].error == "unknown")
        #expect(resources[5].bytes == 0 && resources[5].error == nil)
        // Handed back: the time it went back to the queue, not the stale sidecar's.
        let returned = fixture.spool.queue + "/0/r/" + list + ".5"
        #expect(resources[5].changed == Timestamp.iso8601(try Self.changeTime(returned)))
        // Without a sidecar: when the job file last moved (its claim, its completion); never null.
        let failed = fixture.spool.finishedPath(JobName(list: list, index: 4), .failed)
        #expect(resources[4].changed == Timestamp.iso8601(try Self.changeTime(failed)))
        #expect(resources.allSatisfy { $0.changed != nil })
        #expect((view.active, view.done, view.failed, view.queued) == (2, 1, 2, 1))
        // The view and the summary agree on the counts.
        let summary = try #require(StatusScan.summary(fixture.spool).list(id: list))
        #expect((summary.active, summary.done, summary.failed, summary.queued) == (2, 1, 2, 1))
        // One resource alone (what `farm show` reads) matches its row.
        for index in 0..<6 { #expect(ListView.resource(fixture.spool, listID: list, index: index) == resources[index]) }
        #expect(ListView.resource(fixture.spool, listID: list, index: 6) == nil)
    }

    /// SPEC §4: a resource that has never run carries the time it was queued, never null: added,
    /// handed back by a reclaim, queued again by a reload.
    @Test func aQueuedResourceCarriesTheTimeItWasQueued() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 3)
        let added = try #require(fixture.spool.list(list)).added
        func changed(_ index: Int) throws -> String? {
            let view = try #require(ListView.build(fixture.spool, listID: list))
            let row = try #require(view.resources?[index])
            #expect(row.status == .queued)
            #expect(ListView.resource(fixture.spool, listID: list, index: index) == row)
            return row.changed
        }
        for index in 0..<3 { #expect(try changed(index) == added) }

        // Reclaimed: its lease ran out, the job went back to the queue.
        try fixture.activate(list, 1)
        usleep(20_000)
        // File times come from the kernel's coarse clock, up to a tick (10 ms at most) behind.
        let beforeReclaim = Timestamp.iso8601(Date().timeIntervalSince1970 - 0.011)
        #expect(fixture.spool.reclaimExpired(lease: 0.01) == [JobName(list: list, index: 1)])
        let afterReclaim = Timestamp.iso8601(Date().timeIntervalSince1970 + 0.001)
        let reclaimed = try #require(try changed(1))
        #expect(reclaimed >= beforeReclaim && reclaimed <= afterReclaim && reclaimed > added,
                "\(beforeReclaim) ≤ \(reclaimed) ≤ \(afterReclaim)")

        // Reloaded: done, then queued again.
        try fixture.finish(list, 2)
        usleep(20_000)
        let beforeReload = Timestamp.iso8601(Date().timeIntervalSince1970 - 0.011)
        #expect(try Lists(fixture.spool).reload(list: list) == 1)
        let afterReload = Timestamp.iso8601(Date().timeIntervalSince1970 + 0.001)
        let reloaded = try #require(try changed(2))
        #expect(reloaded >= beforeReload && reloaded <= afterReload,
                "\(beforeReload) ≤ \(reloaded) ≤ \(afterReload)")
        #expect(try changed(0) == added)
    }

    @Test func lookupTakesANameANameWithoutJsonOrAnId() throws {
        let fixture = try StatusFixture()
        let id = try fixture.addList("Set 1.json", count: 1)
        #expect(try ListLookup.find(fixture.spool, "Set 1.json").id == id)
        #expect(try ListLookup.find(fixture.spool, "Set 1").id == id)
        #expect(try ListLookup.find(fixture.spool, id).record.name == "Set 1.json")
        let error = #expect(throws: StatusError.self) { try ListLookup.find(fixture.spool, "Set 9") }
        #expect(error?.message.contains("no list named \"Set 9\"") == true)
        #expect(error?.message.contains("`farm status`") == true)
    }

    @Test func summaryStaysSmallHoweverManyJobs() throws {
        let small = try StatusFixture(inMemory: true), large = try StatusFixture(inMemory: true)
        for fixture in [small, large] {
            let list = try fixture.addList("Set 1.json", count: fixture === small ? 100 : 100_000)
            try fixture.addList("Set 2.json", count: 10)
            for index in 0..<50 { try fixture.finish(list, index) }
        }
        func bytes(_ fixture: StatusFixture) -> Int { JSON.encode(StatusScan.summary(fixture.spool)).count }
        let (smallSize, largeSize) = (bytes(small), bytes(large))
        #expect(largeSize < 1024, "summary of 100k jobs: \(largeSize) bytes")
        // Only the digits of the numbers differ (total, queued, progress).
        #expect(abs(largeSize - smallSize) <= 16, "\(smallSize) bytes for 100 jobs, \(largeSize) for 100k")
    }

    /// The ctime of `path`, as the status reads it.
    private static func changeTime(_ path: String) throws -> Double {
        var st = stat()
        guard lstat(path, &st) == 0 else { throw FixtureError("no \(path)") }
        return Double(st.st_ctim.tv_sec) + Double(st.st_ctim.tv_nsec) / 1e9
    }
}
