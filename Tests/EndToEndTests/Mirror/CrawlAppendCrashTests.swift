import FarmLists
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// The append of a recursive list's links (FarmLists' CrawlAppend.swift) crashed at each of its steps, by
/// the spool's failpoints in farm-probe, then done again as a page fetched again does it: every link ends
/// in the list once, none lost, and fsck finds the spool whole.
@Suite(.serialized) struct CrawlAppendCrashTests {
    static func append(_ farm: RunningFarm, _ urls: [String], crashAt point: String? = nil) throws -> ChildProcess {
        let probe = try ChildProcess("farm-probe", ["append-links", "--spool", farm.spool.root, "--list", "site"] + urls,
                                     environment: point.map { ["FARM_FAILPOINT": $0] } ?? [:])
        probe.wait(timeout: 60)
        return probe
    }

    @Test func anAppendCrashedAtEachStepIsDoneOnceByTheNext() throws {
        let farm = try RunningFarm()
        // --no-robots: nothing is fetched, the workers are never started.
        try farm.must(["add", "http://127.0.0.1:1/index.html", "--recursive", "--no-robots", "--name", "site"])
        let url = { (name: String) in "http://127.0.0.1:1/\(name).html" }
        // A first append commits: the list has an order file from now on.
        #expect(try Self.append(farm, [url("x")]).outputLines == ["added 1"])
        // Killed with its lines in the table and no commit: the next append undoes it and adds them.
        let tabled = try Self.append(farm, [url("a"), url("b")], crashAt: "crawl.tabled")
        #expect(tabled.process.terminationReason == .uncaughtSignal, "\(tabled.standardError)")
        #expect(try Self.append(farm, [url("a"), url("b"), url("c")]).outputLines == ["added 3"])
        // Killed after its commit: the same links again add nothing, a new one is added.
        let committed = try Self.append(farm, [url("d")], crashAt: "crawl.committed")
        #expect(committed.process.terminationReason == .uncaughtSignal, "\(committed.standardError)")
        #expect(try Self.append(farm, [url("d"), url("e")]).outputLines == ["added 1"])

        let id = ListID.of(name: "site")
        // The list as its order has it (a table line of an undone append is in no order).
        let table = farm.spool.lists.resources(ofList: id) ?? []
        let total = farm.spool.list(id)?.total ?? 0
        let urls = Lists(farm.spool).order(ofList: id, total: total).numbers.map { table[$0].url }
        #expect(table.count == urls.count)
        #expect(urls == [url("index"), url("x"), url("a"), url("b"), url("c"), url("d"), url("e")])
        #expect(farm.spool.list(id)?.total == 7)
        #expect(SpoolFixtures.counts(farm.spool) == [.queued: 7])
        let fsck = try farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
    }
}
