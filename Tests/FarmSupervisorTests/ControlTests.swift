import FarmDesired
import FarmJSON
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `start`, `scale`, `pause`/`resume`, `stop`, `reset` and `reload` on a running farm, seen through
/// `farm ps`, the spool and the origin's request log.
@Suite(.serialized) struct ControlTests {
    @Test func scaleUpAndDownShowsInPsAndInActiveJobs() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Scale", count: 12, size: 300_000, rate: 150_000)
        try farm.start(workers: 1)
        #expect(farm.pids(.worker).count == 1)

        // A second start says so and changes nothing.
        let again = try farm.must(["start", "--workers", "9"])
        #expect(again.contains("already running"))
        #expect(farm.spool.control.desired().workers == 1)

        try farm.must(["scale", "4"])
        #expect(poll(timeout: 10) { farm.pids(.worker).count == 4 })
        #expect(poll(timeout: 20) { farm.spool.activeJobs().count == 4 }, "4 workers should hold 4 jobs")
        let ps = try farm.must(["ps", "--json"])
        let rows = JSON.decode([JSONValue].self, from: Array(ps.utf8)) ?? []
        #expect(rows.filter { $0["role"] == .string("worker") }.count == 4)
        #expect(rows.filter { $0["role"] == .string("supervisor") }.count == 1)

        try farm.must(["scale", "2"])
        #expect(poll(timeout: 10) { farm.pids(.worker).count == 2 })
        #expect(poll(timeout: 10) { farm.spool.activeJobs().count <= 2 })
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: "Scale")
    }

    @Test func scaleRefusesOutOfRange() throws {
        let farm = try RunningFarm()
        // A negative number too, which the command line's parser takes for an option unless told not to.
        for bad in ["0", "65", "-1", "-15"] {
            let result = try farm.farm(["scale", bad])
            #expect(result.status == 1, "\(result)")
            #expect(result.error.contains("from 1 to 64 (got \(bad))"), "\(result.error)")
            #expect(result.error.split(separator: "\n").count == 1, "one line: \(result.error)")
        }
        let transfers = try farm.farm(["scale", "2", "--transfers", "-1"])
        #expect(transfers.status == 1 && transfers.error.contains("(got -1)"), "\(transfers)")
        #expect(transfers.error.split(separator: "\n").count == 1, "one line: \(transfers.error)")
        // What is no negative number stays an unknown option.
        #expect(try farm.farm(["scale", "2", "--bogus"]).error.contains("Unknown option '--bogus'"))
        // farm start's numbers too: the range, not the parser's "Missing value".
        for option in ["--workers", "--transfers"] {
            let start = try farm.farm(["start", option, "-1"])
            #expect(start.status == 1 && start.error.contains("(got -1)"), "\(start)")
            #expect(start.error.split(separator: "\n").count == 1, "one line: \(start.error)")
        }
        #expect(farm.spool.control.desired().workers != 2, "nothing changed")
    }

    /// `farm work` takes the worker's limits as `farm start` does (one `WorkerLimits`): a negative number is
    /// refused by its range in one line, not as the parser's "Missing value", and so is a lease out of range.
    @Test func workRefusesLimitsOutOfRangeAsStartDoes() throws {
        let farm = try RunningFarm()
        for (option, bad) in [("--transfers", "-1"), ("--lease", "-1"), ("--max-size", "-1"), ("--lease", "0")] {
            let work = try farm.farm(["work", "--exit-when-idle", option, bad])
            #expect(work.status == 1 && work.error.contains("(got \(bad)"), "\(option) \(bad): \(work)")
            #expect(work.error.split(separator: "\n").count == 1, "one line: \(work.error)")
        }
        #expect(farm.pids(.worker).isEmpty, "no worker ran")
    }

    @Test func pauseStopsBytesAndClaimsAndResumeContinuesFromTheSameByte() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Pause", count: 3, size: 600_000, rate: 200_000)
        try farm.start(workers: 1)
        #expect(poll(timeout: 20) { (farm.partialSizes().values.max() ?? 0) > 100_000 })

        try farm.must(["pause"])
        // Settled: the size stops changing once the pause is seen.
        var settled: [String: Int] = [:]
        #expect(poll(timeout: 5, every: 0.3) {
            let now = farm.partialSizes()
            defer { settled = now }
            return now == settled
        })
        let claimed = farm.spool.activeJobs().map(\.job)
        Thread.sleep(forTimeInterval: 1.5)  // nothing may move meanwhile: waiting is the test
        #expect(farm.partialSizes() == settled, "bytes grew while paused")
        #expect(farm.spool.activeJobs().map(\.job) == claimed, "the lease and the claim are kept, nothing new")
        #expect(farm.counts[.done] == nil)

        try farm.must(["resume"])
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: "Pause")
        // The paused resource was asked for again from exactly the byte it had.
        let (job, kept) = try #require(settled.max { $0.value < $1.value })
        let index = try #require(JobName(job)?.index)
        let starts = farm.origin.requests(for: paths[index]).compactMap(\.rangeStart)
        #expect(starts.contains(kept), "no request resumed at byte \(kept): \(starts)")
    }

    /// A process leaves the registry a moment before it exits and may still act meanwhile (a supervised
    /// one's hand-over starts a supervisor unless the farm is stopping; `farm reset` then finds no stop flag
    /// left): `farm stop` returns once every process of this host has exited, not only left the registry.
    @Test func stopWaitsForAProcessThatLingersAfterLeavingTheRegistry() throws {
        let farm = try RunningFarm()
        let lingering = try ChildProcess("farm-probe", ["linger", "--spool", farm.spool.root, "--seconds", "1.5"])
        try #require(lingering.waitForLine(startingWith: "registered") != nil, "\(lingering.standardError)")
        let started = Date()
        let stopped = try farm.must(["stop"])
        #expect(stopped.contains("stopped: 1 process"), "\(stopped)")
        #expect(isGone(lingering.pid), "farm stop returned while the process still ran")
        #expect(Date().timeIntervalSince(started) >= 1.4)
        #expect(lingering.wait(timeout: 30) == 0)
    }

    @Test func stopHandsJobsBackAndStartResumesWithoutStartingOver() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Stop", count: 2, size: 800_000, rate: 200_000)
        try farm.start(workers: 2)
        #expect(poll(timeout: 20) { farm.partialSizes().count == 2 && farm.partialSizes().values.min()! > 50_000 })
        let pids = farm.processes().map(\.pid)

        let stopped = try farm.must(["stop"])
        #expect(stopped.contains("stopped"))
        #expect(farm.processes().isEmpty)
        #expect(pids.allSatisfy(isGone))
        #expect(farm.spool.activeJobs().isEmpty)
        #expect(farm.counts == [.queued: 2])
        let kept = farm.partialSizes()
        #expect(kept.count == 2 && kept.values.allSatisfy { $0 > 50_000 })

        farm.origin.clearRequests()
        try farm.start(workers: 2)
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: "Stop")
        for path in paths {
            let requests = farm.origin.requests(for: path)
            #expect(!requests.isEmpty && requests.allSatisfy { ($0.rangeStart ?? 0) > 0 },
                    "\(path) started over from byte 0: \(requests)")
        }
    }

    @Test func resetMidRunLeavesNoProcessAndNoData() throws {
        let farm = try RunningFarm()
        try farm.addList("Reset", count: 6, size: 400_000, rate: 200_000)
        try farm.start(workers: 3)
        #expect(poll(timeout: 20) { !farm.partialSizes().isEmpty })
        let pids = farm.processes().map(\.pid)

        try farm.must(["reset"])
        #expect(farm.processes().isEmpty)
        #expect(poll(timeout: 5) { pids.allSatisfy(isGone) })
        for name in try FileManager.default.contentsOfDirectory(atPath: farm.spool.root) where name != ".farm-spool" {
            // The spool's own folders come back, empty, when the next command opens it.
            let left = try FileManager.default.contentsOfDirectory(atPath: farm.spool.root + "/" + name)
                .filter { entry in
                    guard entry != "add.lock" else { return false }
                    let path = name + "/" + entry
                    let contents = try? FileManager.default.contentsOfDirectory(atPath: farm.spool.root + "/" + path)
                    return !(Spool.subdirectories.contains(path) && contents == [])
                }
            #expect(left.isEmpty, "\(name)/ still holds \(left)")
        }
        // A reset spool works as a new one.
        let paths = try farm.addList("Again", count: 2, size: 10_000)
        try farm.start(workers: 1)
        #expect(farm.waitUntilAllDone(paths.count))
    }

    @Test func reloadDownloadsOneListAgainAndTouchesNoOther() throws {
        let farm = try RunningFarm()
        let a = try farm.addList("A", count: 3, size: 20_000)
        let b = try farm.addList("B", count: 3, size: 20_000)
        try farm.start(workers: 2)
        #expect(farm.waitUntilAllDone(a.count + b.count))
        let bFiles = farm.spool.files + "/" + ListID.of(name: "B.json")
        let before = try inodes(bFiles)

        let reloaded = try farm.must(["reload", "A"])
        #expect(reloaded.contains("3 resource"))
        #expect(poll(timeout: 60) { a.allSatisfy { farm.origin.requests(for: $0).count == 2 } })
        #expect(farm.waitUntilAllDone(a.count + b.count))
        try farm.expectEverythingDownloadedOnce(a, list: "A")
        #expect(b.allSatisfy { farm.origin.requests(for: $0).count == 1 })
        #expect(try inodes(bFiles) == before, "B's outputs were touched")

        let unknown = try farm.farm(["reload", "Nope"])
        #expect(unknown.status != 0 && unknown.error.contains("Nope"))
    }

    private func inodes(_ directory: String) throws -> [String: UInt] {
        var result: [String: UInt] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            var st = stat()
            if lstat(directory + "/" + name, &st) == 0 { result[name] = UInt(st.st_ino) }
        }
        return result
    }
}
