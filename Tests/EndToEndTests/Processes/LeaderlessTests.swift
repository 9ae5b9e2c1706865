import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// What happens while the farm has no supervisor (found by the chaos runner): deaths nobody saw, and
/// the last processes leaving.
@Suite(.serialized) struct LeaderlessTests {
    /// A worker dies in the same instant as the supervisor: nobody sees it. Its job must come back
    /// when the replacement supervisor starts (it finds the claim's owner missing from the registry),
    /// not 30 s later when the lease runs out.
    @Test func aDeathNobodySawIsHandedBackByTheNextSupervisor() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Orphan", count: 4, size: 400_000, rate: 100_000)
        try farm.start(workers: 2, lease: 30)
        #expect(poll(timeout: 20) { (farm.partialSizes().values.max() ?? 0) > 20_000 })
        let busy = try #require(farm.spool.activeJobs().first)
        let supervisor = try #require(farm.pids(.supervisor).first)
        kill(supervisor, SIGKILL)
        kill(busy.owner.pid, SIGKILL)
        #expect(poll(timeout: 10) { farm.pids(.supervisor).contains { $0 != supervisor } }, "no new supervisor")
        try #require(poll(timeout: 10) { !farm.spool.activeJobs().contains { $0.owner.pid == busy.owner.pid } },
                "the dead worker's job waits for its 30 s lease")
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: "Orphan")
    }

    /// The supervisor dies while every other process is leaving on SIGTERM (as when it retires
    /// workers): the last one out starts a supervisor, which brings the farm back to what is desired.
    @Test func theLastProcessOutStartsASupervisor() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Last", count: 4, size: 200_000, rate: 200_000)
        try farm.start(workers: 2, lease: 3)
        let supervisor = try #require(farm.pids(.supervisor).first)
        let others = farm.processes().filter { $0.role != .supervisor }.map(\.pid)
        kill(supervisor, SIGKILL)
        for pid in others { kill(pid, SIGTERM) }
        #expect(poll(timeout: 15) { others.allSatisfy(isGone) })
        try #require(poll(timeout: 20) {
            farm.pids(.supervisor).count == 1 && farm.pids(.worker).count == 2 && farm.pids(.watcher).count == 1
        }, "the farm was left with \(farm.processes())")
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: "Last")
    }
}
