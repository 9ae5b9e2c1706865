import FarmDedup
import FarmFixtures
import FarmFsck
import FarmJSON
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// Download once, paid by those who share (SPEC §13; FarmLists' URLSharing.swift): a URL no other job names
/// is downloaded with no record and no holder, and a URL shared after its job was added, started, or was
/// killed half-way is still transferred once. Real farms, a real origin on 127.0.0.1, bytes on disk.
@Suite(.serialized) struct OwnURLTests {
    private static let size = 600_000

    /// A PNG of `size` bytes, served slowly enough (4 s) to be caught while it is transferred.
    private func slowPicture(_ farm: RunningFarm, _ path: String) -> [UInt8] {
        let body = StoredPNG.make(width: 16, height: 16, padTo: Self.size) { y in
            (0..<48).map { UInt8(truncatingIfNeeded: $0 &+ y &+ path.utf8.count) }
        }
        farm.origin.serve(path: path, bytes: body, contentType: "image/png")
        farm.origin.inject(.throttle(bytesPerSecond: 150_000), at: path)
        return body
    }

    /// A real 1,600 × 1,600 PNG of noise (7.7 MB, stored): its display image takes a while to make, so its
    /// job stays claimed, stored but not done, long enough for a job that does not wait for it to transfer
    /// the URL again. Served in about 3 s.
    private func bigPicture(_ farm: RunningFarm, _ path: String) -> [UInt8] {
        var random = SplitMix64(seed: 7)
        let body = StoredPNG.make(width: 1_600, height: 1_600) { _ in
            (0..<4_800).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
        farm.origin.serve(path: path, bytes: body, contentType: "image/png")
        farm.origin.inject(.throttle(bytesPerSecond: 2_500_000), at: path)
        return body
    }

    private func add(_ farm: RunningFarm, _ name: String, _ urls: [String]) throws {
        let manifest = farm.dir.appending(name + ".json")
        try Data(JSON.encode(urls)).write(to: URL(fileURLWithPath: manifest))
        try farm.must(["add", manifest])
    }

    /// The job records of list `name`, from its resource table.
    private func records(_ farm: RunningFarm, _ name: String) throws -> [JobRecord] {
        try #require(farm.spool.lists.resources(ofList: ListID.of(name: name + ".json")))
    }

    private func rows(_ farm: RunningFarm, _ list: String) throws -> [ResourceStatus] {
        let output = try farm.must(["status", list, "--json"])
        return try #require(JSON.decode(ListStatus.self, from: Array(output.utf8))?.resources, "\(output)")
    }

    private func expectBytes(_ farm: RunningFarm, _ list: String, _ body: [UInt8]) throws {
        for row in try rows(farm, list) {
            let file = try #require(row.file, "\(row)")
            #expect(FileManager.default.contents(atPath: file).map([UInt8].init) == body, "\(file)")
        }
    }

    /// The bytes the URL's partial holds so far.
    private func partialBytes(_ farm: RunningFarm, _ url: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: Dedup(farm.spool).partialPath(url: url))[.size] as? Int) ?? 0
    }

    private func expectClean(_ farm: RunningFarm) throws {
        let report = try SpoolCheck(farm.spool).run()
        #expect(report.isClean, "fsck: \(report.findings)")
    }

    /// A URL named once is marked own and downloaded with no record and no holder; added again by another
    /// list and by `farm item add` while it is transferred, it is still transferred once, and its sharers
    /// are served from its output, which then becomes the URL's record.
    @Test func aURLSharedWhileItsOwnJobTransfersIsStillFetchedOnce() throws {
        let farm = try RunningFarm()
        let body = bigPicture(farm, "/slow.png")
        farm.origin.serve(path: "/other.png", bytes: StoredPNG.make(width: 2, height: 2) { _ in [1, 2, 3, 4, 5, 6] },
                          contentType: "image/png")
        let url = farm.origin.url(for: "/slow.png"), other = farm.origin.url(for: "/other.png")
        try add(farm, "First", [url])
        try add(farm, "Third", [other])
        #expect(try records(farm, "First").map(\.own) == [true])
        try farm.start(workers: 3)
        #expect(poll(timeout: 30, every: 0.05) { partialBytes(farm, url) >= body.count / 4 })
        #expect(URLPartial.holder(farm.spool, url: url) == nil, "an own job names no holder")
        try add(farm, "Second", [url])
        try farm.must(["item", "add", "Third", url])
        let first = JobName(list: ListID.of(name: "First.json"), index: 0)
        #expect(try records(farm, "Second").map(\.after) == [first])
        #expect(try records(farm, "Second").map(\.own) == [false])
        #expect(try records(farm, "Third").map(\.after) == [nil, first])
        #expect(farm.waitUntilAllDone(4, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        #expect(farm.origin.requests(for: "/slow.png").count == 1, "\(farm.origin.requests(for: "/slow.png"))")
        try expectBytes(farm, "First", body)
        try expectBytes(farm, "Second", body)
        #expect(try rows(farm, "Second").allSatisfy(\.shared))
        #expect(try rows(farm, "Third").filter(\.shared).count == 1)
        // The sharers published it: the URL has a record now; the other URL, named once, has none.
        #expect(Dedup(farm.spool).storedResult(of: url) != nil)
        #expect(Dedup(farm.spool).storedResult(of: other) == nil)
        try expectClean(farm)
    }

    /// An own job still queued when its URL is added again leaves its add's batch for queue/0 before the new
    /// job is queued, so that it takes the whole protocol: with both queued, the URL is fetched once. A URL
    /// twice in one add is no job's own.
    @Test func anOwnJobStillQueuedIsDemotedWhenItsURLIsAddedAgain() throws {
        let farm = try RunningFarm()
        for path in ["/a.png", "/b.png", "/c.png"] {
            farm.origin.serve(path: path, bytes: StoredPNG.make(width: 2, height: 2) { _ in Array(path.utf8) + [1, 2, 3] },
                              contentType: "image/png")
        }
        let (a, b, c) = (farm.origin.url(for: "/a.png"), farm.origin.url(for: "/b.png"), farm.origin.url(for: "/c.png"))
        try add(farm, "One", [a, b, c, c])
        #expect(try records(farm, "One").map(\.own) == [true, true, false, false])
        let one = ListID.of(name: "One.json")
        let returned = farm.spool.queue + "/0/r/"
        #expect(!FileManager.default.fileExists(atPath: returned + JobName(list: one, index: 0).raw))
        try add(farm, "Two", [a, c])
        #expect(try records(farm, "Two").map(\.after) == [JobName(list: one, index: 0), nil])
        #expect(try records(farm, "Two").map(\.own) == [false, false])
        #expect(FileManager.default.fileExists(atPath: returned + JobName(list: one, index: 0).raw), "demoted")
        #expect(!FileManager.default.fileExists(atPath: returned + JobName(list: one, index: 1).raw))
        try farm.start(workers: 3)
        #expect(farm.waitUntilAllDone(6, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        for path in ["/a.png", "/b.png", "/c.png"] {
            #expect(farm.origin.requests(for: path).count == 1, "\(path): \(farm.origin.requests(for: path))")
        }
        try expectClean(farm)
    }

    /// The worker of an own job is killed half-way through its transfer, and the URL is added again meanwhile:
    /// the next claim resumes the bytes by range, and the sharer is served from the result.
    @Test func anOwnTransferKilledHalfWayResumesAndItsSharerIsServed() throws {
        let farm = try RunningFarm()
        let body = slowPicture(farm, "/slow.png")
        let url = farm.origin.url(for: "/slow.png")
        try add(farm, "First", [url])
        try farm.start(workers: 1)
        #expect(poll(timeout: 30, every: 0.05) { partialBytes(farm, url) >= Self.size / 3 })
        let prefix = JobName(list: ListID.of(name: "First.json"), index: 0).raw + "@"
        let claim = try #require(FileSystem.names(farm.spool.active).first { $0.hasPrefix(prefix) })
        let victim = try #require(ActiveName(claim))
        try add(farm, "Second", [url])
        kill(victim.owner.pid, SIGKILL)
        #expect(farm.waitUntilAllDone(2, timeout: 120), "\(farm.counts); log: \(SpoolFixtures.log(farm.spool))")
        let requests = farm.origin.requests(for: "/slow.png")
        #expect(requests.count == 2, "one cut, one resumed: \(requests)")
        if requests.count == 2 {
            let start = try #require(requests[1].rangeStart)
            #expect(start >= Self.size / 3 && requests[1].status == 206, "\(requests)")
        }
        try expectBytes(farm, "First", body)
        try expectBytes(farm, "Second", body)
        #expect(try rows(farm, "Second").allSatisfy(\.shared))
        try expectClean(farm)
    }
}
