import FarmJSON
import FarmLists
import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// Paged JSON API sources followed by a running farm (SPEC §7): real processes, a real origin, bytes
/// checked on disk.
@Suite struct FollowTests {
    @Test func pagesAreFollowedToTheEndWhileTheFarmDownloadsAndStatusShowsThem() throws {
        let paged = try PagedFarm()
        // Six pages that take a moment each, so downloads run while pages still arrive.
        paged.serve("Books", count: 30, perPage: 5, pageRate: 6_000)
        // A page that fails is retried like a download; a 429's Retry-After is honoured.
        paged.origin.fail(1, with: 503, at: paged.pagePath("Books", 2))
        paged.origin.fail(1, with: 429, retryAfter: 1, at: paged.pagePath("Books", 3))
        try paged.farm.start(workers: 2)
        try paged.add("Books")

        var sawDownloadsBeforeTheLastPage = false
        var totals: Set<Int> = []
        let finished = poll(timeout: 90, every: 0.05) {
            guard let list = try? paged.summary("Books"), let pages = list.paging else { return false }
            totals.insert(list.total)
            if !pages.done {
                #expect(list.state != .finished, "not Finished before the last page is in")
                if list.done > 0 { sawDownloadsBeforeTheLastPage = true }
            }
            return list.state == .finished
        }
        #expect(finished)
        #expect(sawDownloadsBeforeTheLastPage, "resources were downloaded while pages were still fetched")
        #expect(totals.count > 2, "total grew as pages arrived: \(totals.sorted())")

        let list = try #require(try paged.summary("Books"))
        #expect(list.total == 30)
        let object = try #require(try paged.summaryObject("Books"))
        #expect(object["pages"] == PagedFarm.json(#"{"done": true, "fetched": 6, "skipped": 0}"#))
        #expect(list.paging?.title == "The Books")
        #expect(object["error"] == .null)
        let cover = try #require(list.paging?.cover)
        #expect(FileManager.default.contents(atPath: cover).map { [UInt8]($0) } == paged.covers["Books"])
        #expect(try paged.checkDone("Books", count: 30) == nil)
        let rows = try paged.view("Books")?.resources ?? []
        #expect(rows.first?.title == "Book 0")
        #expect(rows.last?.caption == "By: Author 29, Co 29")
        #expect(try paged.farm.must(["status", "Books"]).contains("pages: 6 fetched, all in; title: The Books; cover: /"))

        #expect(paged.origin.requests(forPage: 2, of: "/api/Books").count == 2)
        let third = paged.origin.requests(forPage: 3, of: "/api/Books")
        #expect(third.count == 2)
        if third.count == 2 { #expect(third[1].arrived - third[0].arrived >= 0.9, "Retry-After: 1 honoured") }
        for page in [1, 4, 5, 6] { #expect(paged.origin.requests(forPage: page, of: "/api/Books").count == 1) }

        // Nothing left to follow: the follower is gone, the log says done, fsck finds nothing.
        #expect(poll(timeout: 10) { paged.farm.pids(.follower).isEmpty })
        #expect(FileManager.default.fileExists(atPath: Lists(paged.spool).finishedPageLogPath(ofList: paged.id("Books"))))
        let fsck = try paged.farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
        // A list added without these options is read as before: no pages, no title, no captions.
        try paged.farm.addList("Plain", count: 2, size: 300)
        let plain = try #require(try paged.summaryObject("Plain.json"))
        #expect(plain["pages"] == nil && plain["error"] == nil && plain["title"] == nil)
        let plainRows = try paged.view("Plain.json")?.resources ?? []
        // `labelled`: the resource has a title or a caption key.
        #expect(plainRows.count == 2 && plainRows.allSatisfy { !$0.labelled })
    }

    @Test func theFollowerKilledBetweenPagesAndInTheMiddleOfOneLosesNothing() throws {
        let paged = try PagedFarm()
        paged.serve("Series", count: 40, perPage: 5, pageRate: 8_000)
        // Page 6 stalls after a few bytes the first time: the follower is killed while it waits for it.
        paged.origin.inject(.stall(afterBytes: 20), at: paged.pagePath("Series", 6), times: 1)
        try paged.farm.start(workers: 2)
        try paged.add("Series")

        // Between pages: as soon as page 2 is in.
        #expect(poll(timeout: 30, every: 0.01) { (paged.pages("Series")?.fetched ?? 0) >= 2 })
        let first = try #require(paged.farm.pids(.follower).first)
        kill(first, SIGKILL)
        // In the middle of one: page 6's answer has begun and stalls.
        #expect(poll(timeout: 60, every: 0.05) {
            paged.origin.requests(forPage: 6, of: "/api/Series").contains { $0.bodyBytes >= 20 && !$0.complete }
        })
        let second = try #require(paged.farm.pids(.follower).first)
        #expect(second != first, "the supervisor started a new follower")
        kill(second, SIGKILL)

        #expect(poll(timeout: 120) { (try? paged.summary("Series"))?.state == .finished })
        let list = try #require(try paged.summary("Series"))
        #expect(list.total == 40)
        #expect(list.paging?.fetched == 8)
        #expect(try paged.checkDone("Series", count: 40) == nil)
        #expect(paged.origin.requests(forPage: 6, of: "/api/Series").count == 2)
        let fsck = try paged.farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
    }

    /// A follower crashed at each step of adding a page (its rows written, its jobs queued, its commit
    /// made), then another: every resource once, in order, fsck clean, and the farm downloads them all.
    @Test func aFollowerCrashedHalfWayThroughAddingAPageIsFinishedByTheNext() throws {
        let paged = try PagedFarm()
        paged.serve("Crash", count: 24, perPage: 4)
        try paged.add("Crash")
        for point in ["pages.tabled@1", "pages.queued@1", "pages.committed@2", "pages.tabled@2"] {
            let probe = try ChildProcess("farm-probe", ["follow", "--spool", paged.spool.root],
                                         environment: ["FARM_FAILPOINT": point])
            let status = probe.wait(timeout: 60)
            #expect(probe.process.terminationReason == .uncaughtSignal && status == SIGKILL,
                    "\(point): \(probe.standardError)")
            let fsck = try paged.farm.farm(["fsck"])
            // A page killed before its commit leaves rows in no order and their jobs: the next page finishes it.
            #expect(fsck.status == 0 || fsck.output.contains("removed"), "\(point): \(fsck.output)")
        }
        let last = try ChildProcess("farm-probe", ["follow", "--spool", paged.spool.root])
        last.wait(timeout: 60)
        #expect(last.outputLines == ["followed"], "\(last.standardError)")
        let fsck = try paged.farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
        #expect(paged.pages("Crash")?.fetched == 6)
        #expect(SpoolFixtures.counts(paged.spool) == [.queued: 24])
        try paged.farm.start(workers: 2)
        #expect(poll(timeout: 60) { (try? paged.summary("Crash"))?.state == .finished })
        #expect(try paged.checkDone("Crash", count: 24) == nil)
    }

    @Test func badPagesStopTheirListWithOneLineAndKeepWhatWasAdded() throws {
        let paged = try PagedFarm()
        paged.serve("NotJSON", count: 12, perPage: 3)
        paged.origin.serve(path: paged.pagePath("NotJSON", 3), bytes: Array("<html>oops</html>".utf8))
        paged.serve("NoItems", count: 12, perPage: 3)
        paged.origin.serve(path: paged.pagePath("NoItems", 2), bytes: Array(#"{"other": [], "nextPage": 3}"#.utf8))
        let loop = paged.serve("Loop", count: 12, perPage: 3)
        // Page 3 points back at page 1.
        let served = try JSONParser.parse(loop[2])
        guard case .object(let members) = served else {
            Issue.record("page 3 is \(served.kind)")
            return
        }
        let third = members.map { $0.key == "nextPage" ? JSONMember("nextPage", .number(JSONNumber(1))) : $0 }
        paged.origin.serve(path: paged.pagePath("Loop", 3), bytes: PagedAPI.bytes(of: .object(third)))
        paged.serve("Gone", count: 12, perPage: 3)
        paged.origin.remove(path: paged.pagePath("Gone", 2))
        for list in ["NotJSON", "NoItems", "Loop", "Gone"] { try paged.add(list) }
        try paged.farm.start(workers: 2)
        #expect(poll(timeout: 60) {
            ["NotJSON", "NoItems", "Loop", "Gone"].allSatisfy { (try? paged.summary($0))?.state == .finished }
        })
        let expected: [String: (total: Int, error: String)] = [
            "NotJSON": (6, "page 3: not JSON: line 1, column 1: "),
            "NoItems": (3, "page 2: --items /consumables finds nothing"),
            "Loop": (9, "page 3: its next page, \(paged.origin.url(for: "/api/Loop"))?page=1, is page 1 again"),
            "Gone": (3, "page 2: HTTP 404"),
        ]
        for (list, want) in expected {
            let status = try #require(try paged.summary(list), "\(list)")
            let error = status.paging?.error ?? ""
            #expect(error.hasPrefix(want.error), "\(list): \(error)")
            #expect(!error.contains("\n"))
            #expect(status.total == want.total, "\(list)")
            #expect(status.paging?.done == true)
            #expect(try paged.checkDone(list, count: want.total) == nil, "\(list)")
        }
        let fsck = try paged.farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
    }

    @Test func addRefusesWhatIsNoPagedSourceAndAddsTheSameOneOnce() throws {
        let paged = try PagedFarm()
        paged.serve("Once", count: 3, perPage: 3)
        let url = paged.origin.url(for: "/api/Once")
        for arguments in [["add", url, "--items", "/consumables"], ["add", url, "--items", "consumables", "--url", "/u"],
                          ["add", url, "--items", "/c", "--url", "/u", "--caption", "By: {/a"],
                          ["add", "/tmp/x.json", "--items", "/c", "--url", "/u"]] {
            let result = try paged.farm.farm(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.error.split(separator: "\n").count == 1, "\(arguments): \(result.error)")
        }
        try paged.add("Once")
        #expect(try paged.farm.must(["status", "--json"]).contains("\"Once\""))
        let again = try paged.farm.farm(["add", url, "--name", "Once", "--items", "/consumables", "--url",
                                         "/metadata/cover/url", "--id", "/id", "--title", "/metadata/title",
                                         "--caption", "By: {/metadata/authors/*/name}", "--next", "/nextPage",
                                         "--page-param", "page", "--list-title", "/metadata/title",
                                         "--list-cover", "/metadata/cover/url"])
        #expect(again.status == 0 && again.output.contains("already in the spool"), "\(again.output)\(again.error)")
        let other = try paged.farm.farm(["add", url, "--name", "Once", "--items", "/other", "--url", "/u"])
        #expect(other.status != 0 && other.error.contains("Once"), "\(other.error)")
        let summary = try #require(try paged.summary("Once"))
        #expect(summary.total == 0)
        #expect(summary.state != .finished, "no page in yet")
        let object = try #require(try paged.summaryObject("Once"))
        #expect(object["pages"] == PagedFarm.json(#"{"done": false, "fetched": 0, "skipped": 0}"#))
    }
}
