import FarmDesired
import FarmRegistry
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// The real `farm watch` process against a spool changed under it: the summary follows within a
/// deadline, survives kill -9, directories deleted under it, and ends cleanly on SIGTERM; the same
/// with `--poll` (as on a spool other hosts share), where it looks at the spool instead of inotify.
@Suite struct WatcherProcessTests {
    private func startWatcher(_ fixture: StatusFixture, polling: Bool = false) throws -> ChildProcess {
        let watcher = try ChildProcess("farm", ["watch", "--spool", fixture.root] + (polling ? ["--poll"] : []))
        // Registered, and its first summary written.
        try #require(poll(timeout: 30) {
            fixture.spool.registry.processes().contains { $0.role == .watcher && $0.pid == watcher.pid }
                && SummaryFile.read(fixture.spool) != nil
        }, "the watcher did not start: \(watcher.standardError)")
        return watcher
    }

    /// Waits until the watcher's summary satisfies `condition`.
    @discardableResult
    private func summary(_ fixture: StatusFixture, timeout: Double = 20,
                         _ condition: (StatusDocument) -> Bool) -> StatusDocument? {
        var last: StatusDocument?
        let met = poll(timeout: timeout, every: 0.005) {
            last = SummaryFile.read(fixture.spool)?.document
            return last.map(condition) ?? false
        }
        return met ? last : nil
    }

    private func counts(_ document: StatusDocument?, _ list: String) -> [Int]? {
        document?.list(id: list).map { [$0.queued, $0.active, $0.done, $0.failed] }
    }

    @Test(arguments: [false, true]) func summaryFollowsEveryMove(polling: Bool) throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 200)
        let watcher = try startWatcher(fixture, polling: polling)
        #expect(SpoolFixtures.log(fixture.spool).contains("watcher: polling the spool") == polling)
        #expect(counts(summary(fixture) { $0.list(id: list) != nil }, list) == [200, 0, 0, 0])

        // The first completion also creates done/<list>, which the watcher must start watching.
        try fixture.activate(list, 0)
        #expect(summary(fixture) { $0.list(id: list)?.active == 1 } != nil)
        let moved = Date()
        try fixture.complete(list, 0)
        let seen = summary(fixture) { $0.list(id: list)?.done == 1 }
        #expect(counts(seen, list) == [199, 0, 1, 0], "the watcher missed a completion")
        #expect(Date().timeIntervalSince(moved) < 5)

        // A burst, with hand-backs and failures mixed in: the summary ends equal to a scan.
        for index in 1..<150 {
            try fixture.activate(list, index)
            if index % 10 == 0 {
                try fixture.handBack(list, index)
            } else {
                try fixture.complete(list, index, failed: index % 7 == 0)
            }
        }
        let truth = StatusScan.summary(fixture.spool)
        let caughtUp = summary(fixture) { $0.lists == truth.lists }
        let last = SummaryFile.read(fixture.spool)?.document.lists
        #expect(caughtUp != nil, "watcher: \(String(describing: last)) scan: \(truth.lists)")

        // Control changes and the workers' registry show up too.
        try fixture.spool.control.setPaused(true)
        try fixture.spool.control.setDesired(Desired(workers: 7))
        let worker = try fixture.spool.registry.register(.worker)
        #expect(summary(fixture) { $0.paused && $0.workers == Workers(desired: 7, running: 1) } != nil)
        worker.end()
        #expect(summary(fixture) { $0.workers.running == 0 } != nil)
        // A new list appears without the watcher restarting.
        let second = try fixture.addList("Set 2.json", count: 3)
        #expect(summary(fixture) { $0.list(id: second)?.queued == 3 } != nil)
        watcher.kill(SIGTERM)
        #expect(watcher.wait(timeout: 10) == 0)
    }

    /// A claimed pack (PROTOCOL.md, "Packs"): its first member counts as active, the others as queued, as its
    /// members end one by one and when it goes back whole.
    @Test(arguments: [false, true]) func aPackCountsTheJobItWorksOn(polling: Bool) throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 300)
        let watcher = try startWatcher(fixture, polling: polling)
        let claimer = Claimer(spool: fixture.spool)
        let taken = try claimer.take(skippingParked: false, packs: true)
        try #require(taken.count == 16)
        #expect(counts(summary(fixture) { $0.list(id: list)?.active == 1 }, list) == [299, 1, 0, 0])
        let claims = try taken.map { try #require(fixture.spool.load($0, records: claimer.records)) }
        for claim in claims.prefix(5) { try fixture.spool.complete(claim, .done) }
        #expect(counts(summary(fixture) { $0.list(id: list)?.done == 5 }, list) == [294, 1, 5, 0])
        // Its owner gone, the pack goes back whole: nothing of it is active any more.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(fixture.spool.reclaimExpired(lease: 0.01).count == 11)
        let back = summary(fixture) { $0.list(id: list)?.active == 0 }
        #expect(counts(back, list) == [295, 0, 5, 0])
        watcher.kill(SIGTERM)
        #expect(watcher.wait(timeout: 10) == 0)
    }

    @Test func restartAfterKillRebuildsFromTheSpool() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 10)
        let first = try startWatcher(fixture)
        first.kill(SIGKILL)
        first.wait()
        // Moves while no watcher runs are not lost: the next one starts from a scan.
        for index in 0..<4 { try fixture.finish(list, index) }
        try fixture.finish(list, 4, failed: true)
        try fixture.activate(list, 5)
        #expect(!fixture.spool.registry.processes().contains { $0.role == .watcher })
        let second = try startWatcher(fixture)
        #expect(counts(summary(fixture) { $0.list(id: list)?.done == 4 }, list) == [4, 1, 4, 1])
        second.kill(SIGTERM)
        #expect(second.wait(timeout: 10) == 0)
    }

    @Test(arguments: [false, true]) func directoriesDeletedUnderItAreWatchedAfresh(polling: Bool) throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 10)
        for index in 0..<3 { try fixture.finish(list, index) }
        let watcher = try startWatcher(fixture, polling: polling)
        #expect(summary(fixture) { $0.list(id: list)?.done == 3 } != nil)

        // One list's done/ directory removed with its jobs.
        try FileManager.default.removeItem(atPath: fixture.spool.done + "/" + list)
        #expect(counts(summary(fixture) { $0.list(id: list)?.done == 0 }, list) == [10, 0, 0, 0])

        // The whole spool erased (as `farm reset` does) and filled again.
        try fixture.spool.erase()
        #expect(summary(fixture) { $0.lists.isEmpty } != nil, "no summary after the erase")
        let again = try fixture.addList("Set 2.json", count: 4)
        try fixture.finish(again, 0)
        try fixture.finish(again, 1, failed: true)
        #expect(counts(summary(fixture) { $0.list(id: again)?.failed == 1 }, again) == [2, 0, 1, 1])
        #expect(SpoolFixtures.log(fixture.spool).contains("watching the spool afresh"))
        watcher.kill(SIGTERM)
        #expect(watcher.wait(timeout: 10) == 0)
    }

    /// A list held out of the workers' reach (`farm get`'s ^C) shows `"held": true` and the state Held in
    /// the watcher's summary, a scan's and the per-list view, its jobs counted as queued; let go, it shows
    /// as before. The hold moves no job between the counts: the watcher sees its batch in queue/ come and go.
    @Test(arguments: [false, true]) func aHeldListShowsHeld(polling: Bool) throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 6)
        let other = try fixture.addList("Set 2.json", count: 2)
        try fixture.finish(list, 0)
        let watcher = try startWatcher(fixture, polling: polling)
        #expect(summary(fixture) { $0.list(id: list)?.done == 1 } != nil)

        #expect(try fixture.spool.held.hold(list: list) == 5)
        let held = summary(fixture) { $0.list(id: list)?.held == true }
        #expect(counts(held, list) == [5, 0, 1, 0], "the watcher did not show the hold")
        #expect(held?.list(id: list)?.shownState == "Held")
        #expect(held?.list(id: other)?.held == false)
        #expect(StatusScan.summary(fixture.spool).list(id: list)?.held == true)
        #expect(ListView.build(fixture.spool, listID: list)?.held == true)
        let text = try run("farm", ["status", "--spool", fixture.root]).output
        #expect(text.split(separator: "\n").contains { $0.hasPrefix("Set 1.json") && $0.contains("Held") }, "\(text)")
        let json = try run("farm", ["status", "--json", "--spool", fixture.root]).output
        let shown = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let lists = shown?["lists"] as? [[String: Any]] ?? []
        #expect(lists.first { $0["id"] as? String == list }?["held"] as? Bool == true, "\(json)")
        #expect(lists.first { $0["id"] as? String == other }?["held"] == nil, "\(json)")

        #expect(try fixture.spool.held.release(list: list) == 5)
        let released = summary(fixture) { $0.list(id: list)?.held == false }
        #expect(counts(released, list) == [5, 0, 1, 0], "the watcher did not show the release")
        #expect(released?.list(id: list)?.shownState == "Downloading...")
        #expect(ListView.build(fixture.spool, listID: list)?.held == false)
        watcher.kill(SIGTERM)
        #expect(watcher.wait(timeout: 10) == 0)
    }

    @Test func endsCleanlyOnSigterm() throws {
        let fixture = try StatusFixture()
        let watcher = try startWatcher(fixture)
        let asked = Date()
        watcher.kill(SIGTERM)
        #expect(watcher.wait(timeout: 10) == 0, "\(watcher.standardError)")
        #expect(Date().timeIntervalSince(asked) < 2)
        #expect(watcher.standardError.isEmpty)
        // Its registration is gone with it, not left for a sweep.
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.spool.procs).isEmpty)
    }

    /// `farm status` takes the watcher's summary while it is fresh, and scans the spool once it is
    /// not (a stuck watcher must not freeze what users see).
    @Test func statusReadsAFreshSummaryAndScansAStaleOne() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 2)
        let watcher = try startWatcher(fixture)
        watcher.kill(SIGSTOP)  // alive (its registration holds) but silent
        defer { watcher.kill(SIGKILL) }
        try fixture.finish(list, 0)
        let stale = try run("farm", ["status", "Set 1.json", "--spool", fixture.root])
        #expect(stale.output.contains("1/2 done"), "the per-list view always reads the spool: \(stale.output)")
        let fresh = StatusReader.summary(fixture.spool)
        let writtenAge = SummaryFile.read(fixture.spool)?.age ?? 99
        if writtenAge < SummaryFile.freshness - 0.5 {
            #expect(fresh.list(id: list)?.done == 0, "a fresh summary is the watcher's")
        }
        #expect(poll(timeout: 10) { StatusReader.summary(fixture.spool).list(id: list)?.done == 1 })
    }
}
