import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// Workers do not fsync downloads: the watcher syncs what finished every few seconds and marks it in
/// control/synced, and the first watcher after a reboot sends back whatever finished after the mark
/// and lost its bytes (a power loss is played here by truncating a download and naming another boot).
@Suite(.serialized) struct PowerLossTests {
    @Test func theFirstStartAfterARebootDownloadsAgainWhatTheDiskLost() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Lost", count: 4, size: 20_000)
        try farm.must(["start", "--workers", "2", "--lease", "3", "--no-convert"])
        #expect(farm.waitUntilAllDone(paths.count))
        let list = ListID.of(name: "Lost.json")
        let done = farm.spool.done + "/" + list

        // The watcher syncs the finished jobs and marks it: this boot, after the last completion.
        let boot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let lastCompletion = try FileManager.default.contentsOfDirectory(atPath: done).map { name in
            var st = stat()
            #expect(lstat(done + "/" + name, &st) == 0)
            return Double(st.st_ctim.tv_sec) + Double(st.st_ctim.tv_nsec) / 1e9
        }.max() ?? 0
        let markPath = farm.spool.control.folder + "/synced"
        #expect(poll(timeout: 60, every: 0.1) {
            let fields = ((try? String(contentsOfFile: markPath, encoding: .utf8)) ?? "").split(separator: " ")
            return fields.count == 2 && fields[0] == boot
                && (Double(fields[1].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= lastCompletion
        }, "no sync mark after the last completion")
        try farm.must(["stop"])

        // Power lost before that sync, on an earlier boot: the disk kept a third of one download.
        let lost = farm.spool.files + "/" + list + "/1.png"
        #expect(truncate(lost, 7_000) == 0)
        try "an-earlier-boot 0\n".write(toFile: markPath, atomically: true, encoding: .utf8)
        let served = farm.origin.requests.count
        try farm.must(["start", "--workers", "2", "--lease", "3", "--no-convert"])

        #expect(poll(timeout: 60) {
            farm.counts == [.done: paths.count] && (try? FileManager.default.attributesOfItem(atPath: lost)[.size]
                as? Int) == 20_000
        }, "the lost download did not come back")
        // Only the lost one was fetched again; every stored file is the origin's again.
        #expect(farm.origin.requests.dropFirst(served).map(\.path) == [paths[1]])
        try farm.expectEverythingDownloadedOnce(paths, list: "Lost")
        #expect(SpoolFixtures.log(farm.spool).contains("after a reboot, 1 finished job(s) had lost their outputs"))
        #expect(((try? String(contentsOfFile: markPath, encoding: .utf8)) ?? "").hasPrefix(boot + " "))
        try farm.must(["stop"])
    }
}
