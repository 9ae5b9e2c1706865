import FarmDesired
import FarmJSON
import FarmSpool
import FarmStatus
import FarmTestSupport
import FarmZip
import Foundation
import Testing

/// The disk guard of SPEC §10 on a real farm whose spool lives on a small tmpfs the test mounts (as
/// root) and fills: the farm pauses itself before the disk fills and goes on by itself once space is
/// freed; a write that finds the disk full hands its job back with its bytes. Each test unmounts in a
/// `defer`, after stopping its farm by pid, so no mount outlives it.
@Suite(.serialized) struct DiskTests {
    static let root: ConditionTrait = .enabled(if: TmpfsMount.isPossible, "mounting a tmpfs needs root")

    @Test(root) func pausesItselfBeforeTheDiskFillsAndGoesOnOnceSpaceIsFreed() throws {
        let disk = try TmpfsMount(megabytes: 24)
        let farm = try RunningFarm(spoolRoot: disk.path + "/spool")
        defer {
            farm.shutDownNow()
            disk.unmount()
        }
        // 10 of the 24 MiB are someone else's: twelve 1 MiB downloads would leave 2, under the 6 kept free.
        let filler = try fill(disk, megabytes: 10)
        let paths = try farm.addList("Disk", count: 12, size: 1 << 20, rate: 1 << 20)
        try farm.must(["start", "--workers", "2", "--transfers", "1", "--min-free", String(6 << 20)])
        farm.processes()

        var paused: StatusDocument?
        #expect(try poll(timeout: 60, every: 0.2) {
            paused = try status(farm)
            return paused?.pausedBy == .disk && farm.spool.activeJobs().isEmpty
        }, "never paused by the disk with nothing active: \(String(describing: paused))")
        #expect(paused?.paused == true)
        let room = try #require(paused?.disk)
        let free = room.free
        #expect(room.minFree == 6 << 20)
        // Paused before the disk filled: only the transfers under way went on past the minimum.
        #expect(free < 6 << 20 && free > 1 << 20, "\(free) bytes free")
        let counts = farm.counts
        #expect(counts[.failed] == nil && counts[.active] == nil, "\(counts)")
        #expect((counts[.queued] ?? 0) > 0 && (counts[.done] ?? 0) + (counts[.queued] ?? 0) == paths.count, "\(counts)")
        Thread.sleep(forTimeInterval: 2)  // no new transfer while the disk is short: waiting is the test
        #expect(farm.counts == counts)
        let text = try farm.must(["status"])
        #expect(text.contains("paused by the disk: "), "\(text)")

        // Space comes back: the farm goes on by itself.
        try FileManager.default.removeItem(atPath: filler)
        #expect(farm.waitUntilAllDone(paths.count, timeout: 60), "\(farm.counts)")
        try farm.expectEverythingDownloadedOnce(paths, list: "Disk")
        #expect(try poll(timeout: 5) { try status(farm).map { $0.pausedBy == nil } == true })
        let log = SpoolFixtures.log(farm.spool)
        #expect(log.contains("no new transfer starts until space is freed"), "\(log)")
        #expect(!log.contains("goes back to the queue"), "a write found the disk full: \(log)")
    }

    @Test(root) func aTransferThatFindsTheDiskFullGoesBackToTheQueueWithItsBytes() throws {
        let disk = try TmpfsMount(megabytes: 24)
        let farm = try RunningFarm(spoolRoot: disk.path + "/spool")
        defer {
            farm.shutDownNow()
            disk.unmount()
        }
        // 12 MiB to download where about 8 are free, with 1 byte kept free: the writes fill the disk.
        let filler = try fill(disk, megabytes: 16)
        let paths = try farm.addList("Full", count: 1, size: 12 << 20, rate: 8 << 20)
        try farm.must(["start", "--workers", "1", "--transfers", "1", "--min-free", "1"])
        farm.processes()
        let job = JobName(list: ListID.of(name: "Full.json"), index: 0)

        #expect(poll(timeout: 30, every: 0.1) { farm.counts[.queued] == 1 && farm.partialSizes()[job.raw] != nil })
        let kept = try #require(farm.partialSizes()[job.raw])
        #expect(kept > 4 << 20, "only \(kept) bytes kept")
        #expect(farm.counts == [.queued: 1])
        #expect(!FileManager.default.fileExists(atPath: farm.spool.outputBase(job) + ".png"), "an output was shown")
        var paused: StatusDocument?
        #expect(try poll(timeout: 5, every: 0.2) {
            paused = try status(farm)
            return paused?.pausedBy == .disk
        }, "a full disk is under the 1 byte kept free: \(String(describing: paused))")
        Thread.sleep(forTimeInterval: 1.5)  // nothing is tried again while the disk is full
        #expect(farm.partialSizes()[job.raw] == kept && farm.counts == [.queued: 1])

        try FileManager.default.removeItem(atPath: filler)
        #expect(farm.waitUntilAllDone(1, timeout: 60), "\(farm.counts)")
        try farm.expectEverythingDownloadedOnce(paths, list: "Full")
        let starts = farm.origin.requests(for: paths[0]).compactMap(\.rangeStart)
        #expect(starts == [kept], "resumed from \(starts), not from the \(kept) bytes kept")
        // Handed back, not retried: the attempt that finished is its first.
        #expect(try attempts(farm, list: "Full.json") == [1])
    }

    @Test(root) func aConversionThatFindsTheDiskFullGoesBackToTheQueueWithItsDownload() throws {
        let disk = try TmpfsMount(megabytes: 24)
        let farm = try RunningFarm(spoolRoot: disk.path + "/spool")
        defer {
            farm.shutDownNow()
            disk.unmount()
        }
        // A ZIP holding a 6 MiB PNG, stored: the 6 MiB download fits in the 11 MiB free, its unpacked copy
        // does not fit in the rest.
        let filler = try fill(disk, megabytes: 13)
        let picture: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + (0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let archive = farm.dir.appending("picture.zip")
        try ZipWriter.write(path: archive, entries: [("picture.png", picture)], method: .store)
        let zip = try Array(Data(contentsOf: URL(fileURLWithPath: archive)))
        let paths = try farm.addList("Zip", serving: [("/Zip/0.zip", zip)])
        try farm.must(["start", "--workers", "1", "--transfers", "1", "--min-free", "1"])
        farm.processes()
        let job = JobName(list: ListID.of(name: "Zip.json"), index: 0)

        #expect(poll(timeout: 30, every: 0.1) {
            SpoolFixtures.log(farm.spool).contains("\(job.raw) goes back to the queue with its download")
        }, "\(SpoolFixtures.log(farm.spool))")
        #expect(poll(timeout: 5) { farm.counts == [.queued: 1] }, "\(farm.counts)")
        // The whole download is kept for the next owner, and nothing of the job is shown.
        #expect(farm.partialSizes()[job.raw] == zip.count)
        let folder = farm.spool.outputDirectory(ofList: job.list)
        let outputs = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(outputs.isEmpty, "outputs of a job that is not done: \(outputs)")

        try FileManager.default.removeItem(atPath: filler)
        #expect(farm.waitUntilAllDone(1, timeout: 60), "\(farm.counts)")
        let base = farm.spool.outputBase(job)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: base + ".zip"))) == zip)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: base + ".unzipped/picture.png"))) == picture)
        // The next owner asked only for what it lacked: nothing.
        let starts = farm.origin.requests(for: paths[0]).map(\.rangeStart)
        #expect(starts.first == .some(nil) && starts.dropFirst().allSatisfy { $0 == zip.count }, "\(starts)")
        #expect(try attempts(farm, list: "Zip.json") == [1])
    }

    @Test func startRefusesANegativeMinimum() throws {
        let farm = try RunningFarm()
        let result = try farm.farm(["start", "--min-free=-1"])
        #expect(result.status != 0)
        #expect(result.error.contains("0 (no limit) or more"), "\(result.error)")
        #expect(result.error.split(separator: "\n").count == 1, "one line: \(result.error)")
        #expect(farm.processes().isEmpty)
    }

    @Test func theDefaultMinimumIsOneGiBOrFivePercent() {
        #expect(DiskRoom.defaultMinFree(size: 24 << 20) == (24 << 20) / 20)
        #expect(DiskRoom.defaultMinFree(size: 100 << 30) == 1 << 30)
        #expect(DiskRoom(free: 5, minFree: 6).isShort && !DiskRoom(free: 6, minFree: 6).isShort)
        #expect(!DiskRoom(free: 0, minFree: 0).isShort, "0 keeps nothing free")
    }

    /// Writes a file of `megabytes` MiB on `disk` and returns its path.
    private func fill(_ disk: TmpfsMount, megabytes: Int) throws -> String {
        let path = disk.path + "/filler"
        try Data(count: megabytes << 20).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `farm status --json`, read (nil when it is not a status document).
    private func status(_ farm: RunningFarm) throws -> StatusDocument? {
        let output = try farm.must(["status", "--json"])
        return JSON.decode(StatusDocument.self, from: Array(output.utf8))
    }

    /// The `attempts` of every resource of `list`, by index.
    private func attempts(_ farm: RunningFarm, list: String) throws -> [Int] {
        let output = try farm.must(["status", list, "--json"])
        let object = JSON.decode(ListStatus.self, from: Array(output.utf8))
        return (object?.resources ?? []).map(\.attempts)
    }
}
