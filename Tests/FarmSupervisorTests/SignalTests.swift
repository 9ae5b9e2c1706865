import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A stop signal to a farm process (SPEC §2): SIGTERM or SIGINT to the supervisor is `farm stop`, detached
/// or in the foreground as farm@.service runs it (every process gone, jobs queued with their bytes, nothing
/// started again until `farm start`); SIGTERM to a worker or the watcher ends that one, and the supervisor
/// starts another. (SIGKILL, a death nobody asked for, brings a supervisor back: KillTests.)
@Suite(.serialized) struct SignalTests {
    /// Leases far longer than any wait below: a job that comes back does so because it was handed back,
    /// not because its lease ran out.
    static let lease = 60.0

    @Test(arguments: [SIGTERM, SIGINT])
    func aStopSignalToTheSupervisorStopsTheFarm(signal: Int32) throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Signal", count: 3, size: 800_000, rate: 200_000)
        try farm.start(workers: 2, lease: Self.lease)
        let supervisor = try #require(farm.pids(.supervisor).first)
        try waitForTwoPartials(farm)
        let pids = farm.processes().map(\.pid)

        kill(supervisor, signal)
        try expectStoppedForGood(farm, pids, total: paths.count)
        try expectStartResumes(farm, paths, list: "Signal")
    }

    /// `farm start --foreground` (farm@.service's ExecStart): systemd stops the unit with SIGTERM to this
    /// process alone (KillMode=mixed). It stops the farm and exits 0, which Restart=on-failure leaves be.
    @Test func sigtermToAForegroundSupervisorStopsTheFarmAndExitsZero() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Foreground", count: 3, size: 800_000, rate: 200_000)
        let supervisor = try ChildProcess("farm", ["start", "--foreground", "--workers", "2", "--transfers", "1",
                                                   "--lease", String(Self.lease), "--spool", farm.spool.root],
                                          environment: farm.environment)
        let running = poll(timeout: 60, every: 0.05) {
            farm.pids(.supervisor) == [supervisor.pid] && farm.pids(.worker).count == 2 && farm.pids(.watcher).count == 1
        }
        try #require(running, "not the foreground supervisor with its farm: \(supervisor.standardError)")
        try waitForTwoPartials(farm)
        let pids = farm.processes().map(\.pid)

        supervisor.kill(SIGTERM)
        #expect(supervisor.wait(timeout: 60) == 0, "\(supervisor.standardError)")
        #expect(supervisor.standardOutput.contains("farm stopped on \(farm.spool.root)"), "\(supervisor.standardOutput)")
        try expectStoppedForGood(farm, pids, total: paths.count)
        try expectStartResumes(farm, paths, list: "Foreground")
    }

    @Test func sigtermToAWorkerHandsItsJobBackAtOnceAndTheSupervisorReplacesIt() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Worker", count: 4, size: 800_000, rate: 200_000)
        try farm.start(workers: 2, lease: Self.lease)
        let supervisor = try #require(farm.pids(.supervisor).first)
        try waitForTwoPartials(farm)
        let busy = try #require(farm.spool.activeJobs().first)
        let worker = busy.owner.pid

        kill(worker, SIGTERM)
        // Handed back by the worker as it leaves: seconds, not the 60 s lease.
        #expect(poll(timeout: 5) { !farm.spool.activeJobs().contains { $0.owner.pid == worker } },
                "\(busy.job.raw) is still claimed by worker \(worker)")
        #expect(poll(timeout: 10) { isGone(worker) })
        #expect(poll(timeout: 10) { let workers = farm.pids(.worker); return workers.count == 2 && !workers.contains(worker) },
                "no new worker: \(farm.processes())")
        #expect(farm.pids(.supervisor) == [supervisor], "the supervisor changed: \(farm.processes())")
        #expect(!farm.spool.control.isStopping)
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: "Worker")
    }

    @Test func sigtermToTheWatcherEndsItAndTheSupervisorStartsAnother() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Watcher", count: 3, size: 400_000, rate: 200_000)
        try farm.start(workers: 2, lease: Self.lease)
        let supervisor = try #require(farm.pids(.supervisor).first)
        let watcher = try #require(farm.pids(.watcher).first)
        let workers = Set(farm.pids(.worker))

        kill(watcher, SIGTERM)
        #expect(poll(timeout: 10) { isGone(watcher) })
        #expect(poll(timeout: 10) { let watchers = farm.pids(.watcher); return watchers.count == 1 && watchers != [watcher] },
                "no new watcher: \(farm.processes())")
        #expect(farm.pids(.supervisor) == [supervisor], "the supervisor changed: \(farm.processes())")
        #expect(Set(farm.pids(.worker)) == workers, "the workers changed: \(farm.processes())")
        #expect(!farm.spool.control.isStopping)
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: "Watcher")
    }

    /// Two jobs with bytes on disk, enough that a restart from byte 0 would show.
    private func waitForTwoPartials(_ farm: RunningFarm) throws {
        let started = poll(timeout: 30) { farm.partialSizes().count == 2 && farm.partialSizes().values.min()! > 50_000 }
        try #require(started, "no two downloads under way: \(farm.partialSizes())")
    }

    /// The farm stopped as `farm stop` stops it: every process that ran (`pids`) gone, every job queued with
    /// the bytes it had, the stopping mark up; and for 10 s after, nothing of the farm starts again.
    private func expectStoppedForGood(_ farm: RunningFarm, _ pids: [pid_t], total: Int) throws {
        #expect(poll(timeout: 30) { pids.allSatisfy(isGone) }, "still running: \(pids.filter { !isGone($0) })")
        #expect(farm.processes().isEmpty, "\(farm.processes())")
        #expect(farm.spool.activeJobs().isEmpty)
        #expect(farm.counts == [.queued: total], "\(farm.counts)")
        let kept = farm.partialSizes()
        #expect(kept.count == 2 && kept.values.allSatisfy { $0 > 50_000 }, "\(kept)")
        #expect(farm.spool.control.isStopping)
        // Before the fix the last process out started a supervisor, and it a farm, some 8 s later.
        let restarted = poll(timeout: 10, every: 0.1) { !farm.processes().isEmpty }
        #expect(!restarted, "the farm started again by itself: \(farm.processes())")
    }

    /// `farm start` after the stop resumes each download from the byte it reached.
    private func expectStartResumes(_ farm: RunningFarm, _ paths: [String], list: String) throws {
        let partial = paths.filter { farm.partialSize(url: farm.origin.url(for: $0)) > 0 }
        #expect(partial.count == 2, "\(farm.partialSizes())")
        farm.origin.clearRequests()
        try farm.start(workers: 2, lease: Self.lease)
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: list)
        for path in partial {
            let requests = farm.origin.requests(for: path)
            #expect(!requests.isEmpty && requests.allSatisfy { ($0.rangeStart ?? 0) > 0 },
                    "\(path) started over from byte 0: \(requests)")
        }
    }
}
