import FarmJSON
import FarmSpool
import FarmStatus
@testable import FarmWatcher
import FarmTestSupport
import Foundation
import Testing

/// The watcher driven by hand, one batch of events at a time: what it does when inotify overflows, and
/// when it writes the summary.
@Suite struct WatcherTests {
    /// The watcher's rescan path after an inotify overflow, driven by a synthetic event: its view is
    /// stale (events were lost), and the overflow brings it back to what the spool says.
    @Test func overflowRescanCatchesUpWithTheSpool() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 20)
        let watcher = Watcher(spool: fixture.spool)
        watcher.rescan()
        #expect(watcher.document().list(id: list)?.state == .queuing)

        for index in 0..<5 { try fixture.finish(list, index) }
        try fixture.finish(list, 5, failed: true)
        try fixture.activate(list, 6)
        let late = try fixture.addList("Set 2.json", count: 1)
        #expect(watcher.document().list(id: list)?.done == 0)  // nothing told it

        let scans = watcher.scans
        watcher.process([.overflow])
        #expect(watcher.scans == scans + 1)
        let seen = watcher.document(), truth = StatusScan.summary(fixture.spool)
        #expect(seen.lists == truth.lists)
        let caughtUp = try #require(seen.list(id: list))
        #expect((caughtUp.done, caughtUp.failed, caughtUp.active) == (5, 1, 1))
        #expect(seen.list(id: late) != nil)
        #expect(SpoolFixtures.log(fixture.spool).contains("overflowed"))
    }

    /// Changes wait for the throttle, but not the one that finishes every list: `farm wait` and the
    /// views are waiting for it. Driven by rescans (synthetic overflows), with a throttle of an hour.
    @Test func theFinishingChangeIsWrittenAtOnce() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 3)
        var options = Watcher.Options()
        options.throttle = 3600
        options.heartbeat = 3600
        let watcher = Watcher(spool: fixture.spool, options: options)
        watcher.rescan()
        watcher.writeIfDue()
        #expect(SummaryFile.read(fixture.spool)?.document.list(id: list)?.done == 0)

        for index in 0..<2 { try fixture.finish(list, index) }
        watcher.process([.overflow])
        watcher.writeIfDue()
        #expect(watcher.outstanding() == 1)
        #expect(SummaryFile.read(fixture.spool)?.document.list(id: list)?.done == 0, "throttled, yet written")

        try fixture.finish(list, 2, failed: true)
        watcher.process([.overflow])
        watcher.writeIfDue()
        let written = SummaryFile.read(fixture.spool)?.document
        #expect(written?.isFinished == true, "the finishing change waited for the throttle")
        #expect(written?.list(id: list).map { [$0.done, $0.failed] } == [2, 1])

        // A change after it waits for the throttle again.
        let more = try fixture.addList("Set 2.json", count: 1)
        watcher.process([.overflow])
        watcher.writeIfDue()
        #expect(SummaryFile.read(fixture.spool)?.document.list(id: more) == nil)
    }
}
