import FarmJSON
import FarmLists
import FarmSpool
import FarmSystem
@testable import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// A recursive list's counts per host at 100,000 resources (issue 64), as `ListWindows` makes them for
/// `farm top` and `farm serve`: right, and made once per state of the list's summary entry. Prints what each
/// step took (figures, not assertions: the machine is shared).
@Suite(.serialized) struct HostCountsCostTests {
    static let count = 100_000

    @Test func aHundredThousandResourcesOnTwoHosts() throws {
        let fixture = try StatusFixture(inMemory: true)
        let spool = fixture.spool
        let list = ListID.of(name: "crawl")
        // Even resources on one host, odd ones on another (with a port), as a crawl with --span-hosts adds them.
        let jobs = (0..<Self.count).lazy.map {
            NewJob(name: JobName(list: list, index: $0),
                   record: JobRecord(url: ($0 % 2 == 0 ? "http://a.test/" : "http://b.test:8080/") + "\($0).html",
                                     id: "r\($0)"))
        }
        var request = RequestSummary(headers: [], cookies: 0, proxy: nil, userAgent: nil)
        request.recursive = RecursiveSummary(level: "inf", robots: true, noParent: false, spanHosts: true, domains: [],
                                             accept: [], reject: [], excludeDirs: [])
        let record = ListRecord(name: "crawl", total: Self.count, digest: "test", source: "http://a.test/",
                                added: Timestamp.iso8601(Date().timeIntervalSince1970), request: request)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: record.encoded())])
        // 20,000 fetched (10 of them failed), 3 under way.
        for index in 0..<20_000 { try fixture.finish(list, index, failed: index < 10) }
        for index in 20_000..<20_003 { try fixture.activate(list, index) }

        func timed<Value>(_ what: String, _ body: () -> Value) -> Value {
            let start = Date()
            let value = body()
            print("\(what): \(String(format: "%.1f", Date().timeIntervalSince(start) * 1000)) ms")
            return value
        }
        let windows = ListWindows()
        let entry = try #require(StatusScan.summary(spool).list(id: list))
        let first = try #require(timed("hosts of 100,000, first (table read, hosts made, folders read)") {
            windows.hosts(spool, listID: list, counts: entry)
        })
        #expect(first == [HostCounts(host: "a.test", found: 50_000, fetched: 10_000, active: 2, queued: 39_998),
                          HostCounts(host: "b.test:8080", found: 50_000, fetched: 10_000, active: 1, queued: 39_999)])
        let again = timed("hosts of 100,000, the summary unchanged") { windows.hosts(spool, listID: list, counts: entry) }
        #expect(again == first)
        let window = try #require(timed("a window of 500 at 50,000, the summary unchanged") {
            windows.window(spool, listID: list, offset: 50_000, limit: 500, counts: entry)
        })
        #expect(window.hosts == first)

        // One more fetched: a new summary entry, the counts made again (the hosts of the table kept).
        try fixture.complete(list, 20_000)
        let next = try #require(StatusScan.summary(spool).list(id: list))
        let moved = timed("hosts of 100,000, after a change") { windows.hosts(spool, listID: list, counts: next) }
        #expect(moved?.first?.fetched == 10_001 && moved?.first?.active == 1)
        // The crawl finds links on a third host: the table grows in place, and only its new lines are read.
        let links = (0..<3).map { JobRecord(url: "http://c.test/\($0).html", id: "c\($0)") }
        #expect(try Lists(spool).appendLinks(links, toList: list, seen: CrawlSeen()) == 3)
        let grown = try #require(StatusScan.summary(spool).list(id: list))
        let three = timed("hosts of 100,003, after 3 links appended") { windows.hosts(spool, listID: list, counts: grown) }
        #expect(three?.count == 3 && three?.last == HostCounts(host: "c.test", found: 3, fetched: 0, active: 0, queued: 3))
        // What `farm status LIST` builds (every row), for comparison.
        let whole = timed("ListView.build of 100,000 (farm status LIST)") { ListView.build(spool, listID: list) }
        #expect(whole?.hosts == three)
    }
}
