import FarmJSON
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTestSupport
import Foundation
import Testing

/// A download resumed after a stop shows how far it is from its first row as downloading (issue 66, item 3:
/// a resumed `farm get` printed 0% at 31%): the new owner says its kept bytes at once, and until it has, the
/// row counts the bytes its earlier owner reported.
@Suite(.serialized) struct ResumedProgressTests {
    @Test func aResumedDownloadIsNeverShownAtZero() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        var random = SplitMix64(seed: 3)
        let size = 4 << 20
        let bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        farm.origin.serve(path: "/big.bin", bytes: bytes)
        farm.origin.inject(.throttle(bytesPerSecond: 512 << 10), at: "/big.bin")
        let list = farm.dir.appending("urls.txt")
        let url = farm.origin.url(for: "/big.bin")
        try (url + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        try farm.must(["add", list, "--accept", "any"])
        try farm.start(workers: 1)
        #expect(poll(timeout: 60) { farm.partialSize(url: url) > 3 << 19 }, "\(farm.counts)")
        try farm.must(["stop"])
        let kept = farm.partialSize(url: url)
        try #require(kept > 1 << 20 && kept < size, "\(kept)")

        try farm.start(workers: 1)
        var seen: [ResourceStatus] = []
        _ = poll(timeout: 30, every: 0.01) {
            guard let output = try? farm.must(["status", "urls.txt", "--json"]),
                  let row = JSON.decode(ListStatus.self, from: Array(output.utf8))?.resources?.first else { return false }
            if row.status == .downloading { seen.append(row) }
            return seen.count >= 20 || row.status == .done
        }
        try #require(!seen.isEmpty)
        // The kept bytes count from the first row on (the earlier owner's last report is a tick behind them).
        let floor = kept - (512 << 10)
        #expect(seen.allSatisfy { $0.bytes >= floor && $0.size == size }, "\(seen.map { ($0.bytes, $0.size as Any) })")
        #expect(farm.waitUntilAllDone(1, timeout: 60))
    }
}
