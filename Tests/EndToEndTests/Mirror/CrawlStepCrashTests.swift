import FarmLists
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A real worker (farm-probe's `work`, the same `Worker.run` as `farm work`) killed by the spool's failpoints
/// around a recursive list's first page: between the commit of its links and its completion
/// (`crawl.committed`), and right after its completion (`complete.renamed`). Then another worker finishes the
/// list. Every link of the page is in the list exactly once either way. The second test is the one that fails
/// if a page's links were appended after its completion: the kill would then lose them.
@Suite(.serialized) struct CrawlStepCrashTests {
    /// Adds the site at level 1, runs one worker with `failpoint` armed until it kills itself, then another
    /// until the list is finished; returns the farm and the table's URLs.
    static func crawl(killedAt failpoint: String) throws -> (RunningFarm, [String], Set<String>) {
        let farm = try RunningFarm()
        RecursiveListTests.serveSite(farm.origin)
        let byWget = try RecursiveListTests.fetchedByWget(farm.origin, ["-l", "1"])
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "1", "--name", "site"])
        let first = try ChildProcess("farm-probe", ["work", "--spool", farm.spool.root],
                                     environment: ["FARM_FAILPOINT": failpoint])
        first.wait(timeout: 120)
        #expect(first.process.terminationReason == .uncaughtSignal, "not killed at \(failpoint): \(first.standardError)")
        // The page is done after `complete.renamed`, still active (its owner dead) after `crawl.committed`.
        let counts = SpoolFixtures.counts(farm.spool)
        #expect(counts[.done, default: 0] == (failpoint == "complete.renamed" ? 1 : 0), "\(counts)")
        #expect(counts[.active, default: 0] == (failpoint == "crawl.committed" ? 1 : 0), "\(counts)")
        // A lease of 1 s: the page the kill left active goes back to the queue soon.
        let second = try ChildProcess("farm-probe", ["work", "--spool", farm.spool.root, "--transfers", "2",
                                                     "--lease", "1"])
        #expect(second.wait(timeout: 300) == 0, "\(second.standardError)")
        return (farm, RecursiveListTests.tableURLs(farm, "site"), byWget)
    }

    static func expectWhole(_ farm: RunningFarm, _ urls: [String], _ byWget: Set<String>,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(urls.count == Set(urls).count, "added twice: \(urls)", sourceLocation: sourceLocation)
        // Every link of the page is in (the list is what wget fetches at level 1, robots.txt aside).
        let paths = Set(urls.compactMap { URL(string: $0)?.path })
        #expect(paths == byWget.subtracting(["/robots.txt"]),
                "only wget: \(byWget.subtracting(paths).sorted()); only farm: \(paths.subtracting(byWget).sorted())",
                sourceLocation: sourceLocation)
        #expect(SpoolFixtures.counts(farm.spool)[.queued, default: 0] == 0, sourceLocation: sourceLocation)
        #expect(SpoolFixtures.counts(farm.spool)[.active, default: 0] == 0, sourceLocation: sourceLocation)
        // fsck finds the killed worker's registry entry (no supervisor ran to clear it), and nothing else.
        let fsck = try farm.farm(["fsck"])
        let said = fsck.output + fsck.error
        #expect(fsck.status == 0 || (said.contains("dead-registration") && said.contains("\n1 finding(s)")),
                "\(fsck.output)\(fsck.error)", sourceLocation: sourceLocation)
    }

    @Test func aWorkerKilledBetweenTheLinksAndTheCompletionAddsEachLinkOnce() throws {
        let (farm, urls, byWget) = try Self.crawl(killedAt: "crawl.committed")
        // The page was not done: taken again by the second worker, its links appended again, none twice.
        try Self.expectWhole(farm, urls, byWget)
    }

    @Test func aWorkerKilledRightAfterThePagesCompletionLosesNoLink() throws {
        // Done before the kill, so never fetched again: its links are in only if they were before it was done.
        let (farm, urls, byWget) = try Self.crawl(killedAt: "complete.renamed")
        #expect(RecursiveListTests.asked(farm.origin).counts["/index.html"] == 1)
        try Self.expectWhole(farm, urls, byWget)
    }
}
