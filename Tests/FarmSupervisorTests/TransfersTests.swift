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
        let worker = try ChildProcess("farm", ["work", "--exit-when-idle", "--no-convert", "--spool", farm.spool.root])
        defer { if !isGone(worker.pid) { worker.kill(SIGKILL) } }
        #expect(poll(timeout: 30) { farm.spool.activeJobs().count >= 4 }, "\(farm.spool.activeJobs().count) claimed")
        try farm.must(["scale", "1", "--transfers", "1"])
        #expect(worker.wait(timeout: 120) == 0, "\(worker.standardError)")
        #expect(farm.counts == [.done: paths.count], "\(farm.counts)")
    }

    @Test func transfersOutOfRangeAreRefusedWithTheRange() throws {
        let farm = try RunningFarm()
        let refused = try farm.farm(["start", "--transfers", "0"])
        #expect(refused.status != 0)
        #expect(refused.error.contains("from 1 to 256 (got 0)"), "\(refused.error)")
        #expect(farm.processes().isEmpty)
    }
}
