import FarmTestSupport
import FarmZip
import Foundation
import Glibc
import Testing

/// SPEC §5, the limit rows: a download larger than `--max-size` stops at the limit; a write the file system
/// refuses fails the job with the reason and shows no half-written output. Real `farm work` processes
/// against a real origin; every manifest also holds one good resource.
@Suite struct BadLimitTests {
    @Test func aDownloadLargerThanMaxSizeStopsAtTheLimit() throws {
        let h = try BadInputHarness()
        let limit = 100_000
        h.origin.serve(path: "/big.jpg", bytes: BadInputHarness.jpegLike(2_000_000))
        h.origin.inject(.throttle(bytesPerSecond: 1_000_000), at: "/big.jpg")
        let good = try h.add(["/big.jpg"])
        let partial = try h.spool().partial + "/" + h.job(0).raw

        let worker = try ChildProcess("farm", ["work", "--exit-when-idle", "--max-size", String(limit),
                                               "--spool", h.spoolPath])
        // Watch the partial file for as long as the worker runs: it must never grow past the limit.
        var largest = 0
        poll(timeout: 120) {
            largest = max(largest, (try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0)
            return !worker.process.isRunning
        }
        let status = worker.wait(timeout: 10)
        try #require(status == 0, "farm work: \(String(describing: status)) \(worker.standardError)")

        try h.expectFailed(0, attempts: 1) { $0.contains("limit") }
        #expect(largest <= limit, "the partial file reached \(largest) bytes")
        #expect(access(partial, F_OK) != 0, "the partial bytes of a failed job were left behind")
        #expect(try h.outputs(0).isEmpty)
        try h.expectGoodDone(good)
    }

    /// Disk full without root: RLIMIT_FSIZE makes write(2) fail with EFBIG past 100 KiB (SIGXFSZ ignored,
    /// as a process that handles its write errors would), the same path as ENOSPC in the worker.
    @Test func aWriteTheFileSystemRefusesFailsWithTheReasonAndLeavesNoHalfFile() throws {
        let h = try BadInputHarness()
        let limit = 200 * 512
        h.origin.serve(path: "/big.jpg", bytes: BadInputHarness.jpegLike(1_000_000))
        // A small ZIP whose one image expands past the limit while it is unpacked.
        let zip = h.dir.appending("big-entry.zip")
        let image = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 300_000)
        try ZipWriter.write(path: zip, entries: [("big.png", image)])
        let zipBytes = try BadInputHarness.bytes(zip)
        try #require(zipBytes.count < limit / 2)
        h.origin.serve(path: "/big-entry.zip", bytes: zipBytes)
        let good = try h.add(["/big.jpg", "/big-entry.zip"])

        let script = "trap '' XFSZ; ulimit -f \(limit / 512); exec \"$0\" \"$@\""
        let worked = try run("/bin/sh", ["-c", script, Executables.path("farm"), "work", "--exit-when-idle",
                                         "--spool", h.spoolPath], timeout: 240)
        try #require(worked.status == 0, "farm work: \(worked.status) \(worked.error)")

        try h.expectFailed(0) { $0.contains("File too large") }
        let outputs = try h.outputs(0)
        #expect(outputs.isEmpty, "\(outputs)")
        try h.expectFailed(1, attempts: 1) { $0.contains("big.png") && $0.contains("File too large") }
        // The download stays; no piece of the entry, under its name or a temporary one, does.
        let unzipped = try h.spool().files + "/" + h.list + "/1.unzipped"
        #expect(BadInputHarness.files(below: unzipped).isEmpty, "\(BadInputHarness.files(below: unzipped))")
        #expect(try BadInputHarness.files(below: h.spool().partial).isEmpty)
        try h.expectGoodDone(good)
    }
}
