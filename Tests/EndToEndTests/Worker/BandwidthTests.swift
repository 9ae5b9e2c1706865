import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// SPEC §12's bandwidth cap: every transfer of the host's workers together, changed live by `farm limit`.
/// Real workers, a real origin that serves as fast as it can, and the bytes as they land on disk, sampled
/// every 0.1 s: over any 5 s the farm takes at most the cap and 10 %. A loaded machine can only slow
/// the farm down, so the bound above is exact; the one below (half the cap) only says the cap was not
/// a stop.
@Suite struct BandwidthTests {
    @Test func theCapHoldsAcrossWorkersAndFollowsFarmLimitLive() throws {
        let farm = try RunningFarm()
        try farm.addList("Wide", count: 24, size: 512 << 10)
        try farm.must(["start", "--workers", "2", "--transfers", "3", "--limit-rate", "300K"])
        _ = farm.processes()
        #expect(try farm.must(["limit"]).contains("at most 300K a second"))

        let slow = try sample(farm, for: 6)
        #expect(try farm.must(["limit", "1M"]).contains("at most 1M a second"))
        // Followed within a second: the windows are counted from then on.
        Thread.sleep(forTimeInterval: 1)
        let fast = try sample(farm, for: 6)
        try expectCapped(slow, cap: 300 << 10, "300K")
        try expectCapped(fast, cap: 1 << 20, "1M")

        #expect(try farm.must(["limit", "0"]) == "no bandwidth cap on this host\n")
        #expect(farm.waitUntilAllDone(24, timeout: 120))
        for (path, body) in farm.bodies {
            let index = Int(path.split(separator: "/").last!.split(separator: ".")[0])!
            let file = farm.spool.files + "/" + ListID.of(name: "Wide.json") + "/\(index).png"
            #expect(FileManager.default.contents(atPath: file).map { [UInt8]($0) } == body, "\(path)")
        }
    }

    @Test(arguments: ["fast", "K", "12Q", "", "1,5M", "-5", "-1.5M"])
    func aRateThatIsNotANumberIsRefused(_ rate: String) throws {
        let farm = try RunningFarm()
        let refused = try farm.farm(["limit", rate])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.error.split(separator: "\n").count == 1, "\(refused.error)")
        #expect(refused.error.contains("a bandwidth is a number of bytes a second"), "\(refused.error)")
        #expect(try farm.must(["limit"]) == "no bandwidth cap on this host\n")
    }

    /// (seconds since the first sample, bytes downloaded) every 0.1 s for `seconds`.
    private func sample(_ farm: RunningFarm, for seconds: Double) throws -> [(time: Double, bytes: Int)] {
        let start = Date()
        var samples: [(Double, Int)] = []
        while Date().timeIntervalSince(start) < seconds {
            samples.append((Date().timeIntervalSince(start), downloaded(farm.spool)))
            Thread.sleep(forTimeInterval: 0.1)
        }
        return samples
    }

    /// Every 5 s window of `samples` took at most the cap and 10 % (and at least half the cap).
    private func expectCapped(_ samples: [(time: Double, bytes: Int)], cap: Int, _ label: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        var windows = 0
        for (i, first) in samples.enumerated() {
            guard let last = samples[i...].first(where: { $0.time - first.time >= 5 }) else { break }
            let rate = Double(last.bytes - first.bytes) / (last.time - first.time)
            windows += 1
            #expect(rate <= Double(cap) * 1.1, "\(label): \(Int(rate)) B/s from \(first.time) s", sourceLocation: sourceLocation)
            #expect(rate >= Double(cap) * 0.5, "\(label): only \(Int(rate)) B/s from \(first.time) s", sourceLocation: sourceLocation)
        }
        #expect(windows > 0, "no 5 s window sampled", sourceLocation: sourceLocation)
    }

    /// The bytes the farm holds of its downloads: partial ones and stored ones, each file once (a stored
    /// download is also a blob, the same inode).
    private func downloaded(_ spool: Spool) -> Int {
        var seen = Set<UInt64>(), total = 0
        for directory in [spool.partial, spool.files] {
            for name in FileManager.default.subpaths(atPath: directory) ?? [] {
                var st = stat()
                guard lstat(directory + "/" + name, &st) == 0, st.st_mode & S_IFMT == S_IFREG,
                      seen.insert(UInt64(st.st_ino)).inserted else { continue }
                total += Int(st.st_size)
            }
        }
        return total
    }
}
