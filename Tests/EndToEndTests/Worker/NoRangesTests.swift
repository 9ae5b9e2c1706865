import FarmJSON
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTestSupport
import Foundation
import Testing

/// A server that does not resume (it answers a range with the whole file) starts a paused download over, and
/// the resource says so at once (issue 66, item 6): in `farm status LIST` while it downloads again, and in its
/// record once done, whose bytes are the file's.
@Suite(.serialized) struct NoRangesTests {
    private static let size = 4 << 20
    private static let path = "/big.bin"

    private func row(_ farm: RunningFarm) -> ResourceStatus? {
        guard let output = try? farm.must(["status", "urls.txt", "--json"]) else { return nil }
        return JSON.decode(ListStatus.self, from: Array(output.utf8))?.resources?.first
    }

    @Test func aPausedDownloadFromAServerWithoutRangesSaysItStartedOver() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        var random = SplitMix64(seed: 7)
        let bytes = (0..<Self.size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        farm.origin.serve(path: Self.path, bytes: bytes)
        farm.origin.inject(.rangesOff, at: Self.path)
        farm.origin.inject(.throttle(bytesPerSecond: 512 << 10), at: Self.path)
        let list = farm.dir.appending("urls.txt")
        let url = farm.origin.url(for: Self.path)
        try (url + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        try farm.must(["add", list, "--accept", "any"])
        try farm.start(workers: 1)
        #expect(poll(timeout: 60) { farm.partialSize(url: url) > 1 << 20 }, "\(farm.counts)")
        try farm.must(["pause"])
        // A worker looks at the pause mark every 0.1 s: resumed sooner, its transfer would go on unbroken.
        #expect(poll(timeout: 30) { farm.origin.requests(for: Self.path).first?.ended != nil },
                "the paused transfer ended")
        #expect(row(farm)?.note == nil, "nothing started over yet")
        try farm.must(["resume"])
        // Said while it downloads again, well before it is done (8 s at this rate).
        var seen: ResourceStatus?
        #expect(poll(timeout: 30, every: 0.05) {
            seen = row(farm)
            return seen?.note != nil
        })
        #expect(seen?.status == .downloading && seen?.note?.contains("does not resume") == true, "\(String(describing: seen))")
        let text = try farm.must(["status", "urls.txt"])
        #expect(text.contains("does not resume"), "\(text)")
        let wait = try farm.farm(["wait", "--timeout", "120"], timeout: 180)
        #expect(wait.status == 0, "\(wait.output) \(wait.error)")
        let done = try #require(row(farm))
        #expect(done.status == .done && done.note?.contains("does not resume") == true, "\(done)")
        #expect(FileManager.default.contents(atPath: try #require(done.file)) == Data(bytes))
        // The second request asked for the rest and was sent the whole file.
        let requests = farm.origin.requests(for: Self.path)
        #expect(requests.count == 2 && (requests[1].rangeStart ?? 0) > 0 && requests[1].status == 200, "\(requests)")
    }
}
