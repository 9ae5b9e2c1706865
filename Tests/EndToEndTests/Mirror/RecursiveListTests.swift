import FarmJSON
import FarmLists
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `farm add URL --recursive` end to end (SPEC §18): a real farm crawls a generated site on a real origin
/// on 127.0.0.1. The set it fetches is compared with the set GNU wget's `-r -l N -p` fetches from the same
/// origin, request for request in the origin's log; pages that link each other are fetched once; a broken
/// link fails its resource and the mirror goes on; robots.txt is fetched first and obeyed; and a worker
/// killed with SIGKILL midway leaves the same set, each URL in the list once.
@Suite(.serialized) struct RecursiveListTests {
    static let wget = "/usr/bin/wget"

    /// A tree of 3 sections, each an index, 3 pages that link each other in a ring, and below each page a
    /// deep page and a deeper one: levels 0 to 4. Every page has an image; the home page a stylesheet whose
    /// `url()` names an image, a broken link, a link into /private/ (which robots.txt disallows), and a
    /// link to another host (localhost, the same origin by another name: out of scope, and seen if fetched).
    static func serveSite(_ origin: Origin) {
        func page(_ path: String, _ body: String) {
            origin.serve(path: path, bytes: Array("<!DOCTYPE html>\n<html><body>\n\(body)\n</body></html>\n".utf8),
                         contentType: "text/html")
        }
        func image(_ path: String) { origin.serve(path: path, bytes: Array("IMG \(path)".utf8), contentType: "image/png") }
        origin.serve(path: "/robots.txt", bytes: Array("User-agent: *\nDisallow: /private/\n".utf8), contentType: "text/plain")
        page("/index.html", """
            <head><link rel="stylesheet" href="style.css"></head><img src="img/logo.png">
            <a href="s1/index.html">1</a> <a href="s2/index.html#top">2</a> <a href="./s3/index.html">3</a>
            <a href="private/secret.html">private</a> <a href="missing.html">broken</a>
            <a href="http://localhost:\(origin.port)/elsewhere.html">other host</a> <a href="index.html">self</a>
            """)
        origin.serve(path: "/style.css", bytes: Array("body { background: url(img/bg.png) }".utf8), contentType: "text/css")
        image("/img/logo.png")
        image("/img/bg.png")
        page("/private/secret.html", "<img src=\"secret.png\">")
        page("/elsewhere.html", "elsewhere")
        for section in 1...3 {
            page("/s\(section)/index.html", """
                <img src="../img/s\(section).png"> <a href="p1.html">1</a> <a href="p2.html">2</a> <a href="p3.html">3</a>
                <a href="../index.html">home</a>
                """)
            image("/img/s\(section).png")
            for number in 1...3 {
                page("/s\(section)/p\(number).html", """
                    <img src="img/p\(number).png"> <a href="p\(number % 3 + 1).html">next</a>
                    <a href="deep/d\(number).html">deep</a> <a href="../index.html">home</a> <a href="index.html">up</a>
                    """)
                image("/s\(section)/img/p\(number).png")
                page("/s\(section)/deep/d\(number).html", """
                    <img src="../img/d\(number).png"> <a href="deeper/e\(number).html">deeper</a> <a href="../p\(number).html">up</a>
                    """)
                image("/s\(section)/img/d\(number).png")
                page("/s\(section)/deep/deeper/e\(number).html", "<img src=\"e\(number).png\">")
                image("/s\(section)/deep/deeper/e\(number).png")
            }
        }
    }

    /// The paths asked of `origin` since its log was cleared, each once, and how many times each was asked.
    static func asked(_ origin: Origin) -> (paths: Set<String>, counts: [String: Int]) {
        var counts: [String: Int] = [:]
        for request in origin.requests { counts[request.path + (request.query.map { "?" + $0 } ?? ""), default: 0] += 1 }
        return (Set(counts.keys), counts)
    }

    /// What GNU wget fetches from the site with `-r -p` and `options`.
    static func fetchedByWget(_ origin: Origin, _ options: [String]) throws -> Set<String> {
        origin.clearRequests()
        let output = TemporaryDirectory("farm-mirror-wget")
        let result = try run(Self.wget, ["--no-config", "--no-proxy", "-r", "-p", "-nv", "-t", "1", "-T", "20",
                                         "-P", output.path] + options + [origin.url(for: "/index.html")], timeout: 300)
        // 8: the server answered an error (the broken link).
        #expect(result.status == 0 || result.status == 8, "\(result.error)")
        let paths = asked(origin).paths
        origin.clearRequests()
        return paths
    }

    /// The list `name` in `farm status --json`.
    static func status(_ farm: RunningFarm, _ name: String) throws -> ListStatus? {
        let output = try farm.must(["status", "--json"])
        return JSON.decode(StatusDocument.self, from: Array(output.utf8))?.lists.first { $0.name == name }
    }

    /// Waits until list `name` has no queued or active job and every resource is done or failed; returns
    /// its last status.
    static func waitFinished(_ farm: RunningFarm, _ name: String, timeout: Double = 300) throws -> ListStatus? {
        var last: ListStatus?
        _ = poll(timeout: timeout, every: 0.2) {
            last = try? status(farm, name)
            guard let list = last else { return false }
            return list.total > 1 && list.done + list.failed == list.total && farm.counts[.queued, default: 0] == 0
                && farm.counts[.active, default: 0] == 0
        }
        return last
    }

    /// The URLs of list `name`'s resource table, in order.
    static func tableURLs(_ farm: RunningFarm, _ name: String) -> [String] {
        (farm.spool.lists.resources(ofList: ListID.of(name: name)) ?? []).map(\.url)
    }

    @Test func fetchesWhatWgetFetchesAtLevel2() throws {
        let farm = try RunningFarm()
        Self.serveSite(farm.origin)
        let byWget = try Self.fetchedByWget(farm.origin, ["-l", "2"])
        // Not vacuous: the site has what the level, the scope and robots.txt leave out.
        #expect(byWget.contains("/s2/p3.html") && byWget.contains("/s2/img/p3.png") && byWget.contains("/img/bg.png"))
        #expect(!byWget.contains("/s1/deep/d1.html") && !byWget.contains("/private/secret.html"))
        #expect(!byWget.contains("/elsewhere.html"))

        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "2", "--name", "site"])
        // The add makes no request: the list's first job fetches robots.txt before any other request of the list.
        #expect(farm.origin.requests.isEmpty)
        try farm.start(workers: 2, transfers: 2)
        let list = try #require(try Self.waitFinished(farm, "site"))
        #expect(farm.origin.requests.sorted { $0.arrived < $1.arrived }.first?.path == "/robots.txt")
        let (byFarm, counts) = Self.asked(farm.origin)
        let fsck = try farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
        #expect(byFarm == byWget, "only wget: \(byWget.subtracting(byFarm).sorted()); only farm: \(byFarm.subtracting(byWget).sorted())")
        // Pages that link each other (a ring, and every page back home): each fetched once.
        #expect(counts.filter { $0.value != 1 }.isEmpty, "fetched more than once: \(counts.filter { $0.value != 1 })")
        // Each URL once in the list; the list counts every resource added (all but robots.txt, which is no job of it).
        let urls = Self.tableURLs(farm, "site")
        #expect(urls.count == Set(urls).count)
        #expect(list.total == byWget.count - 1)
        // The broken link failed; the others are done.
        #expect(list.failed == 1)
        #expect(list.done == list.total - 1)
    }

    @Test func noRobotsFetchesWhatRobotsDisallow() throws {
        let farm = try RunningFarm()
        Self.serveSite(farm.origin)
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "1", "--no-robots",
                       "--name", "site"])
        try farm.start(workers: 1, transfers: 2)
        let list = try #require(try Self.waitFinished(farm, "site"))
        // The list says it does not obey robots.txt.
        #expect(list.request?.recursive?.robots == false && list.request?.recursive?.level == "1")
        let byFarm = Self.asked(farm.origin).paths
        #expect(byFarm.contains("/private/secret.html"))
        #expect(!byFarm.contains("/robots.txt"))
    }

    @Test func aWorkerKilledMidwayLeavesTheSameSet() throws {
        let farm = try RunningFarm()
        Self.serveSite(farm.origin)
        let byWget = try Self.fetchedByWget(farm.origin, ["-l", "inf"])
        // Slow pages, so that the kill lands while links are being added.
        for request in Array(byWget) where request.hasSuffix(".html") {
            farm.origin.inject(.throttle(bytesPerSecond: 400), at: request)
        }
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "inf", "--name", "site"])
        try farm.start(workers: 2, transfers: 2, lease: 2)
        var killed = 0
        // The totals `farm status` showed on the way: the list grows in it as links are added.
        var totals = Set<Int>()
        for _ in 0..<3 {
            let before = (try? Self.status(farm, "site"))?.done ?? 0
            #expect(poll(timeout: 120, every: 0.05) {
                let list = try? Self.status(farm, "site")
                if let total = list?.total { totals.insert(total) }
                return (list?.done ?? 0) >= before + 4
            })
            // A worker that holds jobs: killed with its transfers, or between a page's links and its completion.
            guard let pid = farm.pids(.worker).first(where: { pid in
                farm.spool.activeJobs().contains { $0.owner.pid == pid }
            }) ?? farm.pids(.worker).first else { break }
            kill(pid, SIGKILL)
            killed += 1
        }
        #expect(killed == 3)
        #expect(totals.count >= 3, "totals seen: \(totals.sorted())")
        let list = try #require(try Self.waitFinished(farm, "site", timeout: 600))
        let byFarm = Self.asked(farm.origin).paths
        #expect(byFarm == byWget, "only wget: \(byWget.subtracting(byFarm).sorted()); only farm: \(byFarm.subtracting(byWget).sorted())")
        let urls = Self.tableURLs(farm, "site")
        #expect(urls.count == Set(urls).count, "added twice: \(Dictionary(grouping: urls) { $0 }.filter { $0.value.count > 1 }.keys)")
        #expect(list.total == byWget.count - 1)
        #expect(list.failed == 1 && list.done == list.total - 1)
        let fsck = try farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)\(fsck.error)")
    }
}
