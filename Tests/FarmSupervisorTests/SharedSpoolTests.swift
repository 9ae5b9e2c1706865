import FarmSpool
import FarmStatus
import FarmSystem
import FarmTestSupport
import Foundation
import Testing

/// A spool as farm runs it on a file system that other hosts share (GlusterFS through FUSE, NFS), on
/// the local disk: renames without RENAME_NOREPLACE (FARM_FS_NO_NOREPLACE=1, the override that makes
/// the spool take the steps it takes where the file system refuses the flag), and status by polling
/// (`--poll`, what such a file system gets without asking).
@Suite struct SharedSpoolTests {
    @Test func aRunWithoutRenameNoReplaceDownloadsEverythingOnce() throws {
        let farm = try RunningFarm(environment: ["FARM_FS_NO_NOREPLACE": "1"])
        let paths = try farm.addList("Linked", count: 24, size: 200_000, rate: 400_000)
        farm.origin.fail(1, with: 404, at: paths[3])
        let list = ListID.of(name: "Linked.json")
        // Without conversions, so the log holds only what the spool says (these bodies are no images).
        let start = ["start", "--workers", "4", "--transfers", "1", "--lease", "3", "--no-convert"]
        try farm.must(start)

        // Stopped mid-run, it says how many claims went back to the queue, and they did.
        #expect(poll(timeout: 60) { (farm.counts[.done] ?? 0) >= 4 && farm.spool.activeJobs().count == 4 })
        let stopped = try farm.must(["stop"])
        #expect(farm.spool.activeJobs().isEmpty)
        let handedBack = farm.spool.handedBack(ofList: list).count
        #expect(handedBack > 0 && stopped.contains("; \(handedBack) active job(s) back in the queue"), "\(stopped)")

        try farm.must(start)
        #expect(poll(timeout: 120, every: 0.1) { farm.counts == [.done: 23, .failed: 1] })
        #expect(SpoolFixtures.duplicates(in: farm.spool).isEmpty)
        #expect(SpoolFixtures.corruptFiles(farm.spool).isEmpty)
        let log = SpoolFixtures.log(farm.spool)
        #expect(!log.contains("twice") && !log.contains("cannot"), "\(log)")
        for (index, path) in paths.enumerated() where index != 3 {
            let file = farm.spool.outputDirectory(ofList: list) + "/" + String(index) + ".png"
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: file))) == farm.bodies[path], "\(file)")
            // Completed by link and unlink: nothing keeps a second name.
            let done = farm.spool.finishedPath(JobName(list: list, index: index), .done)
            #expect(try FileSystem.lstat(done).linkCount == 1)
        }
        #expect(try FileSystem.lstat(farm.spool.finishedPath(JobName(list: list, index: 3), .failed)).linkCount == 1)
    }

    @Test func pollingKeepsTheStatusWithinTwoSecondsOfTheSpool() throws {
        let farm = try RunningFarm()
        try farm.addList("Polled", count: 40, size: 100_000, rate: 400_000)
        let list = ListID.of(name: "Polled.json")
        try farm.must(["start", "--workers", "3", "--transfers", "1", "--lease", "3", "--poll"])
        // The watcher says so as it starts, which may come a moment after `start` returned.
        #expect(poll(timeout: 20) {
            SpoolFixtures.log(farm.spool).contains("watcher: polling the spool every 0.5 s (the farm was started with --poll)")
        }, "\(SpoolFixtures.log(farm.spool))")
        let top = try ChildProcess("farm", ["top", "--poll", "--spool", farm.spool.root])

        // However far the spool has gone, the summary shows it within two seconds (a look is every half second).
        var lags: [Double] = []
        while (farm.counts[.done] ?? 0) < 35 {
            let done = farm.counts[.done] ?? 0
            let since = Date()
            #expect(poll(timeout: 5, every: 0.02) {
                (SummaryFile.read(farm.spool)?.document.list(id: list)?.done ?? 0) >= done
            })
            lags.append(Date().timeIntervalSince(since))
            Thread.sleep(forTimeInterval: 0.3)
        }
        #expect(lags.count >= 3 && lags.max()! < 2, "lags: \(lags)")
        let wait = try farm.farm(["wait", "--poll", "--timeout", "60"])
        #expect(wait.status == 0, "\(wait.error)")
        #expect(farm.counts == [.done: 40])
        // `top` without a terminal prints a line per change and ends once every list is finished.
        #expect(top.wait(timeout: 10) == 0)
        #expect(top.outputLines.last?.contains("40/40 done") == true, "\(top.standardOutput)")
    }
}
