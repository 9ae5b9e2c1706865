import FarmJSON
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// The built `farm` binary, run as a user would: output, exit status, one-line errors.
@Suite struct CLITests {
    @Test func refusesAForeignDirectoryInOneLineAndTouchesNothing() throws {
        let dir = TemporaryDirectory()
        try Data("mine".utf8).write(to: URL(fileURLWithPath: dir.appending("notes.txt")))
        let result = try run("farm", ["recover", "--spool", dir.path])
        #expect(result.status != 0)
        let lines = result.error.split(separator: "\n")
        #expect(lines.first?.contains("is not a farm spool") == true, "\(result.error)")
        #expect(!result.error.contains("Fatal error") && !result.error.contains("Stack"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["notes.txt"])
    }

    @Test func createsThePrivateSpoolFromTheEnvironment() throws {
        let dir = TemporaryDirectory()
        let spool = dir.appending("spool")
        let result = try run("farm", ["recover"], environment: ["FARM_SPOOL": spool])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("reclaimed 0 job(s)"))
        #expect(FileManager.default.fileExists(atPath: spool + "/.farm-spool"))
        #expect(FileManager.default.fileExists(atPath: spool + "/queue"))
    }

    /// The README's tour kills a worker with a one-liner over `farm ps --json`, then says the job is back in
    /// the queue: the line must pick a worker that holds a job, not the first one, idle or not (issue 66).
    @Test func theReadmesKillLineKillsTheWorkerHoldingAJob() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")
        let line = try #require(try String(contentsOf: readme, encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("kill -9 $(bin/farm ps --json") }, "the tour's kill line")
        let farm = try RunningFarm()
        try farm.addList("Tour", count: 1, size: 3_000_000, rate: 100_000)
        try farm.start(workers: 4)
        #expect(poll(timeout: 30) { farm.spool.activeJobs().count == 1 })
        let ps = try farm.must(["ps", "--json"])
        let rows = JSON.decode([JSONValue].self, from: Array(ps.utf8)) ?? []
        let holders = rows.filter { $0["role"] == .string("worker") && $0["job"] != .null && $0["job"] != nil }
        let pid = pid_t(try #require(holders.count == 1 ? holders.first.flatMap { try? $0.decode("pid") as Int } : nil,
                                     "\(ps)"))
        let idle = farm.pids(.worker).filter { $0 != pid }
        #expect(idle.count == 3)

        let killed = try run("/bin/sh", ["-c", line.replacingOccurrences(of: "bin/farm", with: Executables.path("farm"))],
                             environment: ["FARM_SPOOL": farm.spool.root])
        #expect(killed.status == 0, "\(killed)")
        #expect(poll(timeout: 10) { isGone(pid) }, "the worker holding the job is gone")
        #expect(idle.allSatisfy { !isGone($0) }, "no idle worker was killed")
    }

    /// `farm recover` judges claims by the lease the farm was started with: under `--lease 60` a live
    /// worker renews its claim every 15 s, so a claim 10 s old (the default lease) is still its own.
    @Test func recoverLeavesTheClaimOfALiveWorkerUnderTheFarmsLease() throws {
        let farm = try RunningFarm()
        try farm.addList("Slow", count: 1, size: 400_000, rate: 10_000)
        try farm.start(workers: 1, lease: 60)
        // Past 10 s since the last renewal, and some seconds before the next one.
        var claim: ActiveJob?
        #expect(poll(timeout: 40, every: 0.05) {
            claim = farm.spool.activeJobs().first
            return (claim?.age ?? 0) > 10.5
        }, "no claim went 10 s without renewal")
        let held = try #require(claim)
        let result = try farm.farm(["recover"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("reclaimed 0 job(s)"), "\(result.output)")
        #expect(farm.spool.activeJobs().map(\.job) == [held.job], "the live worker lost its claim")
    }
}
