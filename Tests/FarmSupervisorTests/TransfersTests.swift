import FarmJSON
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// SPEC §13: a worker runs many transfers at once, each a claim of its own; `farm scale --transfers`
/// changes them live, and a worker with fewer hands back the jobs of the transfers it drops.
@Suite struct TransfersTests {
    /// One row of `farm ps --json`, as far as this test reads it.
    struct Row: JSONReadable {
        let role: String
        let pid: Int32
        let jobs: [String]?
        init(json: JSONValue) throws(JSONMismatch) {
            role = try json.decode("role")
            pid = Int32(try json.decode("pid") as Int)
            jobs = try json.decodeIfPresent("jobs")
        }
    }

    private func workerJobs(_ farm: RunningFarm) throws -> [Int32: [String]] {
        let output = try farm.must(["ps", "--json"])
        let rows = try #require(JSON.decode([Row].self, from: Array(output.utf8)), "\(output)")
        return Dictionary(uniqueKeysWithValues: rows.filter { $0.role == "worker" }.map { ($0.pid, $0.jobs ?? []) })
    }

    private func status(_ farm: RunningFarm) throws -> StatusDocument {
        let output = try farm.must(["status", "--json"])
        return try #require(JSON.decode(StatusDocument.self, from: Array(output.utf8)), "\(output)")
    }

    @Test func oneWorkerTransfersManyJobsAtOnceAndScalesThemLive() throws {
        let farm = try RunningFarm()
        // Slow enough (20 KB at 8 KB/s: 2.5 s each) that every transfer is seen under way.
        let paths = try farm.addList("Slow", count: 12, size: 20_000, rate: 8_000)
        try farm.start(workers: 1, transfers: 6)
        let worker = try #require(farm.pids(.worker).first)
        #expect(try status(farm).workers.transfers == 6)
        // Six jobs of one process, each its own claim (its own owner name in active/).
        #expect(poll(timeout: 30) { (try? workerJobs(farm)[worker]?.count) == 6 }, "\((try? workerJobs(farm)) ?? [:])")
        let owners = Set(farm.spool.activeJobs().filter { $0.owner.pid == worker }.map(\.owner.raw))
        #expect(owners.count >= 6, "\(owners)")

        // Fewer transfers: the worker hands back the jobs of the ones it drops, and keeps its process.
        try farm.must(["scale", "1", "--transfers", "2"])
        #expect(poll(timeout: 30) { (try? status(farm).workers.transfers) == 2 })
        #expect(poll(timeout: 30) { (try? workerJobs(farm)[worker]?.count).map { $0 <= 2 } == true },
                "\((try? workerJobs(farm)) ?? [:])")
        #expect(farm.pids(.worker) == [worker])

        try farm.must(["scale", "1", "--transfers", "12"])
        #expect(farm.waitUntilAllDone(paths.count, timeout: 120))
        for (index, path) in paths.enumerated() {
            let file = farm.spool.outputBase(JobName(list: ListID.of(name: "Slow.json"), index: index)) + ".png"
            #expect(FileManager.default.contents(atPath: file).map(Array.init) == farm.bodies[path], "\(file)")
        }
        // Handed back mid-transfer, a job resumed from its bytes: the origin sent each body about once.
        let total = paths.reduce(0) { $0 + (farm.bodies[$1]?.count ?? 0) }
        #expect(farm.origin.bytesServed <= total + total / 4, "\(farm.origin.bytesServed) bytes for \(total)")
    }

    /// A worker run by hand follows the farm's transfers too; one whose extra transfers were dropped
    /// still ends once the queue is empty (`--exit-when-idle`), with every job done.
    @Test func aWorkerByHandWithFewerTransfersStillEndsWhenIdle() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("ByHand", count: 8, size: 20_000, rate: 20_000)
        try farm.must(["scale", "1", "--transfers", "8"])
        let worker = try ChildProcess("farm", ["work", "--exit-when-idle", "--no-convert", "--spool", farm.spool.root])
        defer { if !isGone(worker.pid) { worker.kill(SIGKILL) } }
        #expect(poll(timeout: 30) { farm.spool.activeJobs().count >= 4 }, "\(farm.spool.activeJobs().count) claimed")
        try farm.must(["scale", "1", "--transfers", "1"])
        #expect(worker.wait(timeout: 120) == 0, "\(worker.standardError)")
        #expect(farm.counts == [.done: paths.count], "\(farm.counts)")
    }

    /// SPEC §3 and §13: `farm start --workers N` downloads N resources at once, and `farm scale N` changes
    /// that live; every view says the concurrency in force first. Sampled throughout, the resources
    /// `downloading` never outnumber workers × transfers, but for the moments a change takes to apply.
    @Test func workersAloneDownloadThatManyAtOnceAndScaleFollows() throws {
        let farm = try RunningFarm()
        // 40 KB at 10 KB/s: 4 s each, so that every worker is always busy for the whole test.
        try farm.addList("Many", count: 40, size: 40_000, rate: 10_000)
        let started = try farm.must(["start", "--workers", "1", "--lease", "3"])
        _ = farm.processes()
        #expect(started.contains("1 at once: 1 worker × 1"), "\(started)")
        #expect(try status(farm).workers.transfers == 1)

        // The bound in force, and the moment its last change was asked for: for a few seconds after it the
        // bound is the larger of the old and the new (SPEC gives a change a second to apply; the rest is
        // room for a loaded machine).
        var bound = 1, before = 1, changedAt = Date()
        var seen: [Int] = []
        func sample(for seconds: Double) throws {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                let output = try farm.must(["status", "Many", "--json"])
                let list = try #require(JSON.decode(ListStatus.self, from: Array(output.utf8)), "\(output)")
                let downloading = (list.resources ?? []).filter { $0.status == .downloading }.count
                let allowed = Date().timeIntervalSince(changedAt) < 3 ? max(bound, before) : bound
                #expect(downloading <= allowed, "\(downloading) downloading with \(bound) at once in force")
                seen.append(downloading)
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        func scale(to workers: Int) throws {
            let said = try farm.must(["scale", String(workers)])
            (before, bound, changedAt) = (bound, workers, Date())
            #expect(said.contains("\(workers) at once: \(workers) worker\(workers == 1 ? "" : "s") × 1"), "\(said)")
        }

        try sample(for: 4)
        try scale(to: 3)
        #expect(poll(timeout: 30) { farm.pids(.worker).count == 3 })
        try sample(for: 5)
        #expect(seen.contains(3), "3 workers never downloaded 3 at once: \(seen)")
        let text = try farm.must(["status"])
        #expect(text.hasPrefix("3 at once: 3 workers × 1"), "\(text)")
        try scale(to: 1)
        try sample(for: 6)
        #expect(seen.suffix(10).allSatisfy { $0 <= 1 }, "\(seen)")
    }

    @Test func transfersOutOfRangeAreRefusedWithTheRange() throws {
        let farm = try RunningFarm()
        let refused = try farm.farm(["start", "--transfers", "0"])
        #expect(refused.status != 0)
        #expect(refused.error.contains("from 1 to 256 (got 0)"), "\(refused.error)")
        #expect(farm.processes().isEmpty)
    }
}
