import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// SPEC §18: each host's robots.txt is fetched before its other requests and obeyed, the hosts a list spans
/// to (`--span-hosts`) as well as its start: the worker whose page first links to another origin fetches its
/// robots.txt before any link there enters the list.
@Suite(.serialized) struct SpannedRobotsTests {
    @Test func anotherHostsRobotsTxtIsFetchedFirstAndObeyed() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let other = Origin()
        try other.start()
        defer { other.stop() }
        farm.origin.serve(path: "/robots.txt", bytes: Array("User-agent: *\nAllow: /\n".utf8), contentType: "text/plain")
        let links = ["/open.html", "/closed/page.html", "/open.png"].map { "<a href=\"\(other.url(for: $0))\">x</a>" }
        farm.origin.serve(path: "/index.html", bytes: Array("<html><body>\(links.joined())</body></html>".utf8),
                          contentType: "text/html")
        other.serve(path: "/robots.txt", bytes: Array("User-agent: farm\nDisallow: /closed/\n".utf8),
                    contentType: "text/plain")
        for path in ["/open.html", "/closed/page.html"] {
            other.serve(path: path, bytes: Array("<html><body>\(path)</body></html>".utf8), contentType: "text/html")
        }
        other.serve(path: "/open.png", bytes: Array("IMG /open.png".utf8), contentType: "image/png")

        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "1", "--span-hosts",
                       "--domains", "127.0.0.1", "--name", "spans"])
        try farm.start(workers: 2, transfers: 2)
        let list = try #require(try RecursiveListTests.waitFinished(farm, "spans"))
        #expect(list.done == 3, "the index, open.html and open.png: \(list)")

        let asked = other.requests.sorted { $0.arrived < $1.arrived }.map(\.path)
        #expect(asked.first == "/robots.txt", "robots.txt before the host's other requests: \(asked)")
        #expect(asked.filter { $0 == "/robots.txt" }.count == 1, "fetched once for the list: \(asked)")
        #expect(Set(asked) == ["/robots.txt", "/open.html", "/open.png"], "\(asked)")
    }

    /// The Crawl-delay of a host spanned to spaces the list's requests there, across workers.
    @Test func anotherHostsCrawlDelaySpacesItsRequests() throws {
        let delay = 0.5
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let other = Origin()
        try other.start()
        defer { other.stop() }
        let links = (1...4).map { "<a href=\"\(other.url(for: "/p\($0).html"))\">x</a>" }
        farm.origin.serve(path: "/index.html", bytes: Array("<html><body>\(links.joined())</body></html>".utf8),
                          contentType: "text/html")
        other.serve(path: "/robots.txt", bytes: Array("User-agent: *\nCrawl-delay: \(delay)\n".utf8),
                    contentType: "text/plain")
        for number in 1...4 {
            other.serve(path: "/p\(number).html", bytes: Array("<html><body>\(number)</body></html>".utf8),
                        contentType: "text/html")
        }
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "1", "--span-hosts",
                       "--domains", "127.0.0.1", "--name", "slow-other"])
        try farm.start(workers: 3, transfers: 2)
        let list = try #require(try RecursiveListTests.waitFinished(farm, "slow-other"))
        #expect(list.done == 5, "\(list)")
        // As in CrawlDelayTests: arrivals are stamped after a trip whose time varies, so half the delay is the bound.
        let gap = CrawlDelayTests.smallestGap(other)
        #expect(gap >= delay / 2, "requests \(gap) s apart, where the host's robots.txt asks \(delay) s")
    }
}
