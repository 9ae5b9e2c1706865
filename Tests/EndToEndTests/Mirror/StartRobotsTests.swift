import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// SPEC §18: the start host's robots.txt is fetched before its other requests and obeyed, its Crawl-delay
/// too. `farm add` makes no request (it neither waits for a server nor loads libcurl): the list's first job
/// fetches robots.txt before its own request, keeps it in the spool, and every other worker reads it there.
@Suite(.serialized) struct StartRobotsTests {
    @Test func theAddAsksNothingAndTheFirstJobAsksRobotsTxtFirstAndOnce() throws {
        let delay = 0.2
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let robots = "User-agent: farm\nDisallow: /private/\nCrawl-delay: \(delay)\n\nUser-agent: *\nDisallow: /\n"
        farm.origin.serve(path: "/robots.txt", bytes: Array(robots.utf8), contentType: "text/plain")
        let links = ((1...4).map { "p\($0).html" } + ["private/secret.html"]).map { "<a href=\"\($0)\">x</a>" }
        farm.origin.serve(path: "/index.html", bytes: Array("<html><body>\(links.joined())</body></html>".utf8),
                          contentType: "text/html")
        for path in (1...4).map({ "/p\($0).html" }) + ["/private/secret.html"] {
            farm.origin.serve(path: path, bytes: Array("<html><body>\(path)</body></html>".utf8), contentType: "text/html")
        }

        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "1", "--name", "site"])
        #expect(farm.origin.requests.isEmpty, "the add asked \(farm.origin.requests.map(\.path))")
        try farm.start(workers: 3, transfers: 2)
        let list = try #require(try RecursiveListTests.waitFinished(farm, "site"))
        #expect(list.done == 5, "the index and its four pages: \(list)")

        let asked = farm.origin.requests.sorted { $0.arrived < $1.arrived }.map(\.path)
        #expect(asked.first == "/robots.txt", "robots.txt before the host's other requests: \(asked)")
        #expect(asked.filter { $0 == "/robots.txt" }.count == 1, "fetched once, by one worker, for all: \(asked)")
        #expect(!asked.contains("/private/secret.html"), "robots.txt obeyed for the user agent farm: \(asked)")
        // Its Crawl-delay spaces the list's requests (CrawlDelayTests says why half of it is the bound), and
        // the list says so, though the add never saw robots.txt.
        let gap = CrawlDelayTests.smallestGap(farm.origin)
        #expect(gap >= delay / 2, "requests \(gap) s apart, where robots.txt asks \(delay) s")
        #expect(list.request?.recursive?.crawlDelay == delay, "\(String(describing: list.request))")
    }
}
