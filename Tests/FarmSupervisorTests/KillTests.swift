import FarmRegistry
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `kill -9` of any farm process, or of all of them, during a run loses nothing: every resource ends
/// done, byte-equal to the origin's, completed exactly once.
@Suite(.serialized) struct KillTests {
    enum Victim: String, CaseIterable, Sendable { case worker, watcher, supervisor, everyone }

    @Test(arguments: Victim.allCases)
    func killNineDuringARunLosesNothing(victim: Victim) throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Kill", count: 8, size: 400_000, rate: 200_000)
        try farm.start(workers: 3, lease: 3)
        #expect(poll(timeout: 20) { (farm.partialSizes().values.max() ?? 0) > 50_000 })

        switch victim {
        case .worker:
            let busy = try #require(farm.spool.activeJobs().first)
            kill(busy.owner.pid, SIGKILL)
            // A death the supervisor sees: the job is back well before its lease would expire.
            #expect(poll(timeout: 2.5) { !farm.spool.activeJobs().contains { $0.owner.pid == busy.owner.pid } })
        case .watcher, .supervisor:
            let role: Role = victim == .watcher ? .watcher : .supervisor
            let target = try #require(farm.pids(role).first)
            kill(target, SIGKILL)
            #expect(poll(timeout: 10) { farm.pids(role).contains { $0 != target } }, "no new \(role.rawValue)")
            #expect(farm.pids(.supervisor).count == 1)
        case .everyone:
            for process in farm.processes() { kill(process.pid, SIGKILL) }
            #expect(poll(timeout: 5) { farm.processes().isEmpty })
            try farm.start(workers: 3, lease: 3)
        }
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: "Kill")
        #expect(farm.pids(.worker).count == 3)
    }
}
