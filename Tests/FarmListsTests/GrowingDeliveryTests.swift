@testable import FarmLists
import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Testing

/// The delivery plan of a list that grows at its end (a recursive list's links): planned on from where the
/// last plan stopped, it names every resource as a plan made from the start does, " (2)" numbering included,
/// and its cost follows what the list grew by (the figure printed), not what it holds.
@Suite struct GrowingDeliveryTests {
    @Test func aGrowingListIsNamedAsAFreshPlanNamesIt() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let out = dir.appending("out")
        try FileSystem.ensureDirectories(out)
        let id = ListID.of(name: "site")
        let record = ListRecord(name: "site", total: 1, digest: "d", source: "http://h.test/index.html", added: "t",
                                delivery: Delivery(folder: out, template: "{list}/{name}", mode: 0o644))
        try spool.enqueue([NewJob(name: JobName(list: id, index: 0),
                                  record: JobRecord(url: "http://h.test/index.html", id: "0"))],
                          lists: [ListRecordFile(id: id, bytes: record.encoded())])
        let file = dir.appending("bytes")
        try FileSystem.createFile(file, Array("page".utf8))
        let growing = Deliveries(spool: spool), seen = CrawlSeen()
        var delivered: [Int: String] = [:]
        func deliver(_ index: Int, by deliveries: Deliveries) throws -> String? {
            try deliveries.deliver(JobName(list: id, index: index), file: file, ext: "html", sha256: nil)
        }
        delivered[0] = try deliver(0, by: growing)
        // Each round adds links whose names collide with earlier ones ("x.html" in every folder).
        var total = 1
        var timings: [Double] = []
        for round in 0..<20 {
            let links = (0..<50).map { n in
                var link = JobRecord(url: "http://h.test/r\(round)/d\(n % 7)/x.html?\(n)", id: "")
                link.depth = 1
                return link
            }
            #expect(try Lists(spool).appendLinks(links, toList: id, seen: seen) == 50)
            let start = Clock.monotonic()
            for index in total..<(total + 50) { delivered[index] = try deliver(index, by: growing) }
            timings.append(Clock.monotonic() - start)
            total += 50
        }
        // A plan made from the start, by a process of its own, names each one the same.
        let fresh = Deliveries(spool: spool)
        for index in [0, 1, 2, 499, 500, 999, total - 1] {
            #expect(try deliver(index, by: fresh) == delivered[index], "\(index)")
        }
        #expect(Set(delivered.values).count == total)
        #expect(delivered[1] == out + "/site/x.html" && delivered[2] == out + "/site/x (2).html")
        #expect(delivered[total - 1] == out + "/site/x (\(total - 1)).html")
        print("50 deliveries after the list grew to \(total / 2) and to \(total): "
              + "\(Int(timings[9] * 1000)) ms, \(Int(timings[19] * 1000)) ms")

        // A crawl's rhythm on a list of 20,000: a page adds a link, the link is delivered, and so on; each
        // delivery comes after the table grew, so each plans again.
        let many = (0..<20_000).map { n in JobRecord(url: "http://h.test/many/\(n).html", id: "") }
        #expect(try Lists(spool).appendLinks(many, toList: id, seen: seen) == many.count)
        total += many.count
        _ = try deliver(total - 1, by: growing)
        let start = Clock.monotonic()
        for n in 0..<50 {
            #expect(try Lists(spool).appendLinks([JobRecord(url: "http://h.test/one/\(n).html", id: "")], toList: id,
                                                 seen: seen) == 1)
            #expect(try deliver(total, by: growing) == out + "/site/\(n) (2).html")
            total += 1
        }
        print("50 links appended and delivered one by one on a list of \(total): "
              + "\(Int((Clock.monotonic() - start) * 1000)) ms")
    }
}
