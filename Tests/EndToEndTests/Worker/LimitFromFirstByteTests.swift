import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// `farm limit` is in force when it returns (issue 66, item 5): a transfer that starts at once after it is
/// capped from its first byte. The origin serves as fast as it can; the farm is paused while the cap is set,
/// and resumed right after, so the transfer starts within moments of `farm limit` returning.
@Suite(.serialized) struct LimitFromFirstByteTests {
    @Test func aTransferThatStartsRightAfterLimitReturnedIsCappedFromItsFirstByte() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let size = 16 << 20
        let body = [UInt8](repeating: 0x5A, count: size)
        farm.origin.serve(path: "/big.bin", bytes: body)
        let list = farm.dir.appending("big.txt")
        try (farm.origin.url(for: "/big.bin") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        try farm.start(workers: 2)
        try farm.must(["pause"])
        try farm.must(["add", list, "--accept", "any"])
        // Each worker says it follows the cap before `farm limit` returns.
        #expect(try farm.must(["limit", "1M"]).contains("at most 1M a second"))
        let resumed = Date()
        try farm.must(["resume"])
        #expect(poll(timeout: 30, every: 0.02) { !farm.origin.requests(for: "/big.bin").isEmpty })
        Thread.sleep(forTimeInterval: 1.5)
        // At 1 MiB a second (and a tenth of a second's burst) it has taken at most about 2 MiB in the time since
        // the resume (the bytes in its partial file: the origin's own count is what it handed to its socket
        // buffers); uncapped, all 16 MiB come in a fraction of a second.
        let seconds = Date().timeIntervalSince(resumed)
        let taken = farm.partialSize(url: farm.origin.url(for: "/big.bin"))
        #expect(Double(taken) <= (seconds + 0.5) * Double(1 << 20), "\(taken) bytes in \(seconds) s")
        #expect(farm.counts[.done] == nil, "\(farm.counts)")
        try farm.must(["limit", "0"])
        #expect(farm.waitUntilAllDone(1, timeout: 120))
    }

    @Test func limitReturnsWithNoWorkerRunning() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let started = Date()
        #expect(try farm.must(["limit", "2M"]).contains("at most 2M a second"))
        #expect(Date().timeIntervalSince(started) < 3)
    }
}
