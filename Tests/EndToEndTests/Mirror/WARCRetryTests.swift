import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A URL whose job failed (a 404, a 503 given up on) and that a later fetch gets (`farm retry`): its list's WARC
/// files end with one response record for it, the success, with the origin's bytes (SPEC §18: the last, complete
/// fetch), the error's response and request dropped from their file; also when the worker is killed in the
/// middle of that drop. Checked by warcio (PyPI) against a real farm and a real origin on 127.0.0.1.
@Suite(.serialized) struct WARCRetryTests {
    /// A PNG's magic, then bytes no other path serves (download once, SPEC §7, must not take them from another job).
    static func picture(_ seed: Int) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<6000).map { UInt8(truncatingIfNeeded: $0 * 7 + seed) }
    }

    static func addList(_ farm: RunningFarm, _ paths: [String]) throws -> String {
        let manifest = farm.dir.appending("retried.json")
        try JSONSerialization.data(withJSONObject: paths.map { farm.origin.url(for: $0) })
            .write(to: URL(fileURLWithPath: manifest))
        let folder = farm.dir.appending("warc")
        try farm.must(["add", manifest, "--warc", folder])
        return folder
    }

    /// The list's records once its files are finished, checked by `warcio check`, with each URL indexed once.
    static func finishedRecords(_ folder: String, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [WARCListTests.Record] {
        let (finished, open) = WARCListTests.files(folder)
        #expect(open.isEmpty, "left open: \(open)", sourceLocation: sourceLocation)
        try WARCListTests.check(finished)
        let indexed = try WARCListTests.indexedResponses(finished)
        #expect(indexed.filter { $0.value != 1 }.isEmpty, "recorded more than once: \(indexed)",
                sourceLocation: sourceLocation)
        return try WARCListTests.records(finished)
    }

    static func payload(_ records: [WARCListTests.Record], _ farm: RunningFarm, _ path: String) -> String? {
        records.first { $0.type == "response" && $0.uri == farm.origin.url(for: path) }?.sha256
    }

    /// The errors recorded by a worker that ended (its file finished), then retried by another farm: a 503
    /// given up on, and a 404 reached through a redirect whose hop stays recorded once.
    @Test func aRetryDropsTheErrorsFromTheFinishedFileOfAWorkerThatEnded() throws {
        let farm = try RunningFarm()
        let down = Self.picture(1), later = Self.picture(2)
        farm.origin.serve(path: "/down.png", bytes: down, contentType: "image/png")
        farm.origin.fail(5, with: 503, at: "/down.png")
        farm.origin.inject(.redirect(to: "/later.png"), at: "/hop")
        let folder = try Self.addList(farm, ["/down.png", "/hop"])
        try farm.start(workers: 1, transfers: 2)
        #expect(poll(timeout: 300, every: 0.2) { farm.counts == [.failed: 2] }, "\(farm.counts)")
        try farm.must(["stop"])
        let failed = try Self.finishedRecords(folder)
        #expect(WARCExchangeTests.statuses(failed) == ["/down.png": ["503"], "/hop": ["302"], "/later.png": ["404"]])

        farm.origin.serve(path: "/later.png", bytes: later, contentType: "image/png")
        try farm.start(workers: 1, transfers: 2)
        try farm.must(["retry"])
        #expect(poll(timeout: 120, every: 0.2) { farm.counts == [.done: 2] }, "\(farm.counts)")
        try farm.must(["stop"])
        #expect(farm.origin.requests(for: "/down.png").map(\.status) == [503, 503, 503, 503, 503, 200])
        let records = try Self.finishedRecords(folder)
        #expect(WARCExchangeTests.statuses(records) == ["/down.png": ["200"], "/hop": ["302"], "/later.png": ["200"]])
        #expect(Self.payload(records, farm, "/down.png") == WARCListTests.sha256(down))
        #expect(Self.payload(records, farm, "/later.png") == WARCListTests.sha256(later))
        WARCExchangeTests.expectRequestsMatchResponses(records)
        WARCExchangeTests.expectNoDropLeft(farm, folder)
    }

    /// A worker (farm-probe's `work`, the same `Worker.run` as `farm work`) killed in the drop of the 404 that
    /// its retry superseded: once its copy of the file is written and before the rename
    /// (`warc.compact-written`), or after the rename and before the drop is unnoted (`warc.compacted`). Another
    /// worker redoes the job: the 200 is whole already and not recorded again, the drop is done (again); the
    /// next farm finishes the dead worker's file. One response for the URL either way, and none torn.
    @Test(arguments: ["warc.compact-written", "warc.compacted"])
    func aWorkerKilledInTheDropLeavesOneResponseAfterTheRedo(failpoint: String) throws {
        let farm = try RunningFarm()
        let kept = Self.picture(3), later = Self.picture(4)
        farm.origin.serve(path: "/kept.png", bytes: kept, contentType: "image/png")
        let folder = try Self.addList(farm, ["/kept.png", "/later.png"])
        try farm.start(workers: 1, transfers: 1)
        #expect(poll(timeout: 120, every: 0.2) { farm.counts == [.done: 1, .failed: 1] }, "\(farm.counts)")
        try farm.must(["stop"])

        farm.origin.serve(path: "/later.png", bytes: later, contentType: "image/png")
        try farm.must(["retry"])
        let killed = try ChildProcess("farm-probe", ["work", "--spool", farm.spool.root],
                                      environment: ["FARM_FAILPOINT": failpoint])
        killed.wait(timeout: 120)
        #expect(killed.process.terminationReason == .uncaughtSignal, "not killed at \(failpoint): \(killed.standardError)")
        #expect(farm.counts == [.done: 1, .active: 1], "\(farm.counts)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(names.contains { $0.hasSuffix(".compacting") } == (failpoint == "warc.compact-written"), "\(names)")

        // A lease of 1 s: the job the kill left active goes back to the queue soon.
        let second = try ChildProcess("farm-probe", ["work", "--spool", farm.spool.root, "--lease", "1"])
        #expect(second.wait(timeout: 300) == 0, "\(second.standardError)")
        #expect(farm.counts == [.done: 2], "\(farm.counts)")
        // The next farm's supervisor finishes the killed worker's file.
        try farm.start(workers: 1)
        try farm.must(["stop"])
        #expect(farm.origin.requests(for: "/later.png").map(\.status) == [404, 200, 200])
        let records = try Self.finishedRecords(folder)
        #expect(WARCExchangeTests.statuses(records) == ["/kept.png": ["200"], "/later.png": ["200"]])
        #expect(Self.payload(records, farm, "/later.png") == WARCListTests.sha256(later))
        #expect(Self.payload(records, farm, "/kept.png") == WARCListTests.sha256(kept))
        WARCExchangeTests.expectRequestsMatchResponses(records)
        WARCExchangeTests.expectNoDropLeft(farm, folder)
    }
}
