import FarmLists
import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// `--warc DIR` records every exchange (SPEC §18), not only the one a resource is stored from: each redirect's
/// hop (its 3xx as received, body included, before the answer it led to), and the answer a resource fails with
/// (a 404, a 410, a 503 given up on). A URL retried after a 503 keeps only its last, complete fetch, a URL two
/// jobs reach is recorded once, and a job redone after its records were appended appends none again. Checked by warcio (PyPI) against a real farm and
/// a real origin on 127.0.0.1.
@Suite(.serialized) struct WARCExchangeTests {
    /// The list every test here adds: redirects to pictures and to nowhere, errors, a flaky and a dead URL.
    /// Returns the bodies served and the manifest's path.
    static func serve(_ farm: RunningFarm) throws -> (bodies: [String: [UInt8]], manifest: String) {
        var bodies = WARCListTests.serveSite(farm.origin, pages: 3)
        let origin = farm.origin
        origin.inject(.redirect(to: "/hop2", status: 301), at: "/hop1")
        origin.inject(.redirect(to: "/img/p1.png"), at: "/hop2")
        origin.inject(.redirect(to: "/missing.png", status: 307), at: "/to-missing")
        origin.inject(.status(410), at: "/gone.png")
        origin.inject(.status(503), at: "/down.png")
        let flaky = bodies["/img/p3.png"] ?? []
        origin.serve(path: "/flaky.png", bytes: flaky, contentType: "image/png")
        bodies["/flaky.png"] = flaky
        origin.fail(2, with: 503, at: "/flaky.png")
        let paths = ["/hop1", "/to-missing", "/missing.png", "/gone.png", "/down.png", "/flaky.png", "/img/p2.png"]
        let manifest = farm.dir.appending("exchanges.json")
        try JSONSerialization.data(withJSONObject: paths.map { origin.url(for: $0) })
            .write(to: URL(fileURLWithPath: manifest))
        return (bodies, manifest)
    }

    /// Waits until the list's 7 jobs ended: 3 done, 4 failed.
    static func waitEnded(_ farm: RunningFarm) -> Bool {
        poll(timeout: 300, every: 0.2) { farm.counts == [.done: 3, .failed: 4] }
    }

    /// The responses of `records` by URI (path): their statuses, in the order written.
    static func statuses(_ records: [WARCListTests.Record]) -> [String: [String]] {
        var found: [String: [String]] = [:]
        for record in records where record.type == "response" {
            let path = record.uri.flatMap { URL(string: $0)?.path } ?? ""
            found[path, default: []].append(record.status ?? "")
        }
        return found
    }

    static let expected: [String: [String]] = [
        "/hop1": ["301"], "/hop2": ["302"], "/img/p1.png": ["200"], "/to-missing": ["307"], "/missing.png": ["404"],
        "/gone.png": ["410"], "/down.png": ["503"], "/flaky.png": ["200"], "/img/p2.png": ["200"],
    ]

    @Test func redirectHopsAndErrorsAreRecordedOnceEach() throws {
        let farm = try RunningFarm()
        let (bodies, manifest) = try Self.serve(farm)
        let folder = farm.dir.appending("warc")
        try farm.must(["add", manifest, "--warc", folder])
        try farm.start(workers: 1, transfers: 2)
        #expect(Self.waitEnded(farm), "\(farm.counts)")
        try farm.must(["stop"])
        // Retried: /flaky.png answered 503 twice, /down.png five times (the default attempts), each recorded once.
        #expect(farm.origin.requests(for: "/flaky.png").map(\.status) == [503, 503, 200])
        #expect(farm.origin.requests(for: "/down.png").count == 5)
        // Asked by two jobs, its own and /to-missing's redirect: recorded once all the same.
        #expect(farm.origin.requests(for: "/missing.png").count == 2)
        let records = try WARCListTests.checkArchive(folder, origin: farm.origin, bodies: bodies)
        #expect(Self.statuses(records) == Self.expected)
        // A hop's record is the 3xx as received: the origin's body, before the answer it led to.
        let hop = try #require(records.first { $0.type == "response" && $0.uri == farm.origin.url(for: "/hop1") })
        #expect(hop.sha256 == WARCListTests.sha256(Array("see /hop2\n".utf8)))
        let gone = try #require(records.first { $0.type == "response" && $0.uri == farm.origin.url(for: "/gone.png") })
        #expect(gone.sha256 == WARCListTests.sha256(Array("410 Gone\n".utf8)))
        // /to-missing's 404 may be recorded by /missing.png's own job, before: only the hops to p1 are in order.
        let order = records.filter { $0.type == "response" }.compactMap { $0.uri.flatMap { URL(string: $0)?.path } }
        let chain = ["/hop1", "/hop2", "/img/p1.png"].compactMap { order.firstIndex(of: $0) }
        #expect(chain == chain.sorted() && chain.count == 3, "\(order)")
    }

    /// Every job of the finished list, done and failed, sent back to the queue by the spool's own redo (the state
    /// a worker killed after its records were appended and before its completion leaves), then fetched again:
    /// each URL answered twice, recorded once.
    @Test func jobsRedoneAfterTheirExchangesWereRecordedAppendNothing() throws {
        let farm = try RunningFarm()
        let (bodies, manifest) = try Self.serve(farm)
        let folder = farm.dir.appending("warc")
        try farm.must(["add", manifest, "--warc", folder])
        try farm.start(workers: 1, transfers: 2)
        #expect(Self.waitEnded(farm), "\(farm.counts)")
        try farm.must(["stop"])
        let id = ListID.of(name: "exchanges.json")
        for index in 0..<7 {
            let job = JobName(list: id, index: index)
            let done = farm.spool.finishedPath(job, .done)
            let path = FileManager.default.fileExists(atPath: done) ? done : farm.spool.finishedPath(job, .failed)
            #expect(try Lists(farm.spool).redo(path, job: job, outputs: []))
        }
        #expect(farm.counts == [.queued: 7])
        try farm.start(workers: 1, transfers: 2)
        #expect(Self.waitEnded(farm), "\(farm.counts)")
        try farm.must(["stop"])
        // /missing.png is asked by two jobs (its own and /to-missing's): four times.
        for (path, count) in ["/hop1": 2, "/hop2": 2, "/missing.png": 4, "/gone.png": 2, "/img/p2.png": 2] {
            #expect(farm.origin.requests(for: path).count == count, "\(path): \(farm.origin.requests(for: path))")
        }
        let records = try WARCListTests.checkArchive(folder, origin: farm.origin, bodies: bodies)
        #expect(Self.statuses(records) == Self.expected)
    }

    /// `farm retry` of failed resources: one that now exists gets its 200 recorded in place of its 404 (the
    /// archive holds the last complete fetch of each URL, what the list delivered), its 404's response and request
    /// dropped from the file the worker that fetched both had open; one still missing is fetched again and its
    /// 404 not recorded twice.
    @Test func aRetryThatSucceedsReplacesTheErrorByTheResourceAndAnotherErrorRecordsNothing() throws {
        let farm = try RunningFarm()
        let bodies = WARCListTests.serveSite(farm.origin, pages: 1)
        let manifest = farm.dir.appending("later.json")
        try JSONSerialization.data(withJSONObject: ["/later.png", "/never.png"].map { farm.origin.url(for: $0) })
            .write(to: URL(fileURLWithPath: manifest))
        let folder = farm.dir.appending("warc")
        try farm.must(["add", manifest, "--warc", folder])
        try farm.start(workers: 1, transfers: 2)
        #expect(poll(timeout: 120, every: 0.2) { farm.counts == [.failed: 2] }, "\(farm.counts)")
        let later = bodies["/img/p1.png"] ?? []
        farm.origin.serve(path: "/later.png", bytes: later, contentType: "image/png")
        try farm.must(["retry"])
        #expect(poll(timeout: 120, every: 0.2) { farm.counts == [.done: 1, .failed: 1] }, "\(farm.counts)")
        try farm.must(["stop"])
        #expect(farm.origin.requests(for: "/never.png").count == 2)
        let (finished, open) = WARCListTests.files(folder)
        #expect(open.isEmpty)
        try WARCListTests.check(finished)
        let records = try WARCListTests.records(finished)
        #expect(Self.statuses(records) == ["/later.png": ["200"], "/never.png": ["404"]])
        #expect(try WARCListTests.indexedResponses(finished).values.allSatisfy { $0 == 1 })
        let stored = try #require(records.first { $0.type == "response" && $0.status == "200" })
        #expect(stored.sha256 == WARCListTests.sha256(later))
        Self.expectRequestsMatchResponses(records)
        Self.expectNoDropLeft(farm, folder)
    }

    /// Each request record names a response record of the files (WARC-Concurrent-To), and each response has
    /// one request: a response dropped took its request with it.
    static func expectRequestsMatchResponses(_ records: [WARCListTests.Record],
                                             sourceLocation: SourceLocation = #_sourceLocation) {
        let responses = records.filter { $0.type == "response" }.map(\.id)
        let requests = records.filter { $0.type == "request" }.compactMap(\.concurrent)
        #expect(requests.sorted() == responses.sorted(), "requests \(requests), responses \(responses)",
                sourceLocation: sourceLocation)
    }

    /// No drop is left noted in the spool, and no compaction's copy in the folder.
    static func expectNoDropLeft(_ farm: RunningFarm, _ folder: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lists = (try? FileManager.default.contentsOfDirectory(atPath: farm.spool.warc.drops)) ?? []
        let noted = lists.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: farm.spool.warc.drops(ofList: $0))) ?? [] }
        #expect(noted.isEmpty, "drops left: \(noted)", sourceLocation: sourceLocation)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(names.allSatisfy { $0.hasSuffix(".warc.gz") }, "\(names)", sourceLocation: sourceLocation)
    }
}
