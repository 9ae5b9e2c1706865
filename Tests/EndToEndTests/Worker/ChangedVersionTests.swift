import FarmJSON
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A resumed download is never made of two versions of a file (SPEC §2): an origin that ignores If-Range
/// answers a range with a 206 of the bytes it holds now, and the file changed on it while farm held part of
/// the old one. Whether the transfer was paused, its worker killed, or the file was in pieces, the output
/// is the new version byte for byte, and the resource's note says why it was fetched again.
@Suite(.serialized) struct ChangedVersionTests {
    private static let size = 3 << 20
    private static let path = "/photo.bin"

    /// The bytes of one version of the file: noise drawn from `seed`.
    private static func version(_ seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// Serves the first version, throttled so that a transfer lasts, from an origin that ignores If-Range,
    /// and adds it as a one-resource list taking any kind.
    private func begin(_ farm: RunningFarm, rate: Int, connections: Int = 1) throws -> [UInt8] {
        let old = Self.version(1)
        farm.origin.serve(path: Self.path, bytes: old)
        farm.origin.inject(.ifRangeIgnored, at: Self.path)
        farm.origin.inject(.throttle(bytesPerSecond: rate), at: Self.path)
        let list = farm.dir.appending("urls.txt")
        try (farm.origin.url(for: Self.path) + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        var arguments = ["add", list, "--accept", "any"]
        if connections > 1 { arguments += ["--connections", String(connections), "--min-piece", "1M"] }
        try farm.must(arguments)
        return old
    }

    /// The file changes on the origin: other bytes, another ETag, the same size; it still ignores If-Range,
    /// and now serves at full speed.
    /// Pauses the farm and waits until each of its transfers has ended: a worker looks at the pause mark every
    /// 0.1 s, and a file changed before would reach a transfer still under way.
    private func pause(_ farm: RunningFarm) throws {
        try farm.must(["pause"])
        #expect(poll(timeout: 30) { farm.origin.requests(for: Self.path).allSatisfy { $0.ended != nil } },
                "the paused transfers ended")
    }

    private func change(_ farm: RunningFarm) -> [UInt8] {
        let new = Self.version(2)
        farm.origin.serve(path: Self.path, bytes: new)
        farm.origin.clearFaults()
        farm.origin.inject(.ifRangeIgnored, at: Self.path)
        return new
    }

    /// The one resource's row, once the farm finished it.
    private func finished(_ farm: RunningFarm) throws -> ResourceStatus {
        let wait = try farm.farm(["wait", "--timeout", "120"], timeout: 180)
        #expect(wait.status == 0, "\(wait.output) \(wait.error); log: \(SpoolFixtures.log(farm.spool))")
        let output = try farm.must(["status", "urls.txt", "--json"])
        return try #require(JSON.decode(ListStatus.self, from: Array(output.utf8))?.resources?.first, "\(output)")
    }

    /// Whether a ranged request of the path was answered 206 after the change (the splice that farm must
    /// refuse was offered), and the file then asked for from its first byte.
    private func refusedASplice(_ farm: RunningFarm) -> Bool {
        let requests = farm.origin.requests(for: Self.path)
        guard let offered = requests.lastIndex(where: { ($0.rangeStart ?? 0) > 0 && $0.status == 206 }) else { return false }
        return requests[offered...].contains { $0.rangeStart == nil || $0.rangeStart == 0 }
    }

    @Test func aPauseAcrossAChangeOfTheFileFetchesTheNewVersionWhole() throws {
        let farm = try RunningFarm()
        let old = try begin(farm, rate: 320_000)
        try farm.start(workers: 1)
        let url = farm.origin.url(for: Self.path)
        #expect(poll(timeout: 60) { farm.partialSize(url: url) > 600_000 }, "\(farm.counts)")
        try pause(farm)
        let kept = farm.partialSize(url: url)
        #expect(kept > 0 && kept < Self.size, "\(kept)")
        let new = change(farm)
        try farm.must(["resume"])
        let row = try finished(farm)
        let file = try #require(row.file)
        #expect(difference(file, new) == nil, "the output is the new version, byte for byte")
        #expect(difference(file, old) != nil)
        #expect(refusedASplice(farm), "\(farm.origin.requests(for: Self.path))")
        #expect(row.note?.contains("changed") == true, "the note says why: \(String(describing: row.note))")
    }

    @Test func aWorkerKilledAcrossAChangeOfTheFileLeavesTheNewVersionWhole() throws {
        let farm = try RunningFarm()
        let old = try begin(farm, rate: 320_000)
        try farm.start(workers: 1, lease: 2)
        let url = farm.origin.url(for: Self.path)
        #expect(poll(timeout: 60) { farm.partialSize(url: url) > 600_000 }, "\(farm.counts)")
        // The file changes while the worker still receives the old version's bytes; then it is killed, and
        // whoever takes the job next asks for the rest.
        let new = change(farm)
        let worker = try #require(farm.pids(.worker).first)
        kill(worker, SIGKILL)
        #expect(poll(timeout: 30) { isGone(worker) })
        let row = try finished(farm)
        let file = try #require(row.file)
        #expect(difference(file, new) == nil, "the output is the new version, byte for byte")
        #expect(difference(file, old) != nil)
        #expect(refusedASplice(farm), "\(farm.origin.requests(for: Self.path))")
    }

    @Test func aResourceInPiecesWhoseFileChangedStartsOverWhole() throws {
        let farm = try RunningFarm()
        _ = try begin(farm, rate: 200_000, connections: 3)
        try farm.start(workers: 3)
        // Each of the three pieces under way.
        #expect(poll(timeout: 60) { ((try? FileManager.default.contentsOfDirectory(atPath: farm.spool.pieces)) ?? []).count == 1
            && farm.origin.requests(for: Self.path).filter { $0.status == 206 }.count >= 3 }, "\(farm.counts)")
        Thread.sleep(forTimeInterval: 1)  // bytes of the old version in each piece
        try pause(farm)
        let new = change(farm)
        try farm.must(["resume"])
        let row = try finished(farm)
        let file = try #require(row.file)
        #expect(difference(file, new) == nil, "the output is the new version, byte for byte")
        #expect(refusedASplice(farm), "\(farm.origin.requests(for: Self.path))")
        #expect(row.note != nil, "the note says why")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: farm.spool.pieces)) ?? []).isEmpty)
    }
}
