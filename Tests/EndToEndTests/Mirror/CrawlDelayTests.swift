import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// SPEC §18: a robots.txt's `Crawl-delay` is the start host's interval of §10. Every worker of the farm spaces
/// its requests to that host by it (the host's shared token bucket), however many transfers run; with
/// `--no-robots` the same site is fetched at full speed, which shows the spacing is the delay's doing.
@Suite(.serialized) struct CrawlDelayTests {
    static func serveSite(_ origin: Origin, robots: String) {
        origin.serve(path: "/robots.txt", bytes: Array(robots.utf8), contentType: "text/plain")
        let links = (1...8).map { "<a href=\"p\($0).html\">\($0)</a>" }.joined(separator: " ")
        origin.serve(path: "/index.html", bytes: Array("<html><body>\(links)</body></html>".utf8), contentType: "text/html")
        for number in 1...8 {
            origin.serve(path: "/p\(number).html", bytes: Array("<html><body>page \(number)</body></html>".utf8),
                         contentType: "text/html")
        }
    }

    /// The smallest gap between two requests of the list (robots.txt, fetched before them, left out).
    static func smallestGap(_ origin: Origin) -> Double {
        let times = origin.requests.filter { $0.path != "/robots.txt" }.map(\.arrived).sorted()
        return zip(times, times.dropFirst()).map { $1 - $0 }.min() ?? .infinity
    }

    @Test func aCrawlDelaySpacesEveryRequestToTheHostAcrossWorkers() throws {
        let delay = 0.5
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        Self.serveSite(farm.origin, robots: "User-agent: farm\nCrawl-delay: \(delay)\n\nUser-agent: *\nDisallow: /\n")
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "1", "--name", "slow"])
        try farm.start(workers: 3, transfers: 2)
        let list = try #require(try RecursiveListTests.waitFinished(farm, "slow"))
        #expect(list.done == 9, "\(list)")
        #expect(list.request?.recursive?.crawlDelay == delay, "the list says why it is slow: \(String(describing: list.request))")
        // The bucket lets one request in a delay. Arrivals are stamped by the origin, after a trip whose time
        // varies on a loaded machine: half the delay is the bound, five times the control's.
        let gap = Self.smallestGap(farm.origin)
        #expect(gap >= delay / 2, "requests \(gap) s apart, where robots.txt asks \(delay) s")
    }

    @Test func withoutRobotsTheSameSiteIsFetchedAtOnce() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        Self.serveSite(farm.origin, robots: "User-agent: *\nCrawl-delay: 0.5\n")
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "1", "--no-robots",
                       "--name", "fast"])
        try farm.start(workers: 3, transfers: 2)
        let list = try #require(try RecursiveListTests.waitFinished(farm, "fast"))
        #expect(list.done == 9)
        #expect(list.request?.recursive?.crawlDelay == nil)
        #expect(Self.smallestGap(farm.origin) < 0.05, "six transfers at once, no delay asked of them")
    }
}
