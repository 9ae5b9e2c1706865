import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `rm -rf` of the spool under a running farm: every process of the farm stops within a few seconds,
/// burning no CPU on its way out, and says why where it still can (its standard error).
@Suite struct RemovedSpoolTests {
    @Test func everyProcessStopsWhenItsSpoolIsRemoved() throws {
        let farm = try RunningFarm()
        try farm.addList("Gone", count: 12, size: 300_000, rate: 50_000)
        // A worker run by hand beside the farm, whose standard error the test reads. Started first, so that
        // the supervisor adopts it as one of the four it wants: were it a fifth, the supervisor would
        // retire the youngest, and it might stop so before the spool is removed, with nothing to say.
        let worker = try ChildProcess(Executables.path("farm"), ["work", "--spool", farm.spool.root, "--lease", "3"])
        defer { worker.kill() }
        #expect(poll(timeout: 20) { farm.pids(.worker) == [worker.pid] }, "\(worker.standardError)")
        try farm.start(workers: 4, lease: 3)
        #expect(poll(timeout: 20) {
            farm.pids(.worker).count == 4 && farm.pids(.watcher).count == 1 && farm.spool.activeJobs().count >= 3
        })
        let pids = farm.processes().map(\.pid)
        #expect(pids.contains(worker.pid))

        let before = Dictionary(uniqueKeysWithValues: pids.map { ($0, cpuTicks($0) ?? 0) })
        var last = before
        // As a user would. The farm goes on writing meanwhile (sidecars, metrics, emptied shards), so a
        // folder can gain an entry between rm's reading it and removing it ("Directory not empty"): the
        // user runs rm again.
        var rm = try run("/bin/rm", ["-rf", farm.spool.root])
        for _ in 0..<5 where rm.status != 0 { rm = try run("/bin/rm", ["-rf", farm.spool.root]) }
        #expect(rm.status == 0, "\(rm.error)")
        let removed = Date()
        let stopped = poll(timeout: 8, every: 0.05) {
            for pid in pids { if let ticks = cpuTicks(pid) { last[pid] = ticks } }
            return pids.allSatisfy(isGone)
        }
        let left = pids.filter { !isGone($0) }
        for pid in left { kill(pid, SIGKILL) }
        #expect(stopped, "still running \(Date().timeIntervalSince(removed)) s after the spool was removed: \(left)")

        // What they spent between the removal and their exit: a spinning process burns ~100 ticks a second.
        let spent = pids.reduce(0) { $0 + (last[$1] ?? 0) - (before[$1] ?? 0) }
        #expect(spent < 50, "\(spent) ticks of CPU spent after the spool was removed")
        // Its exit collected, and all it wrote read from the pipe (a slow build's reader may lag behind).
        worker.wait(timeout: 30)
        #expect(worker.standardError.contains("the spool \(farm.spool.root) was removed"), "\(worker.standardError)")
    }

    /// utime + stime of `pid` in clock ticks, while it runs.
    private func cpuTicks(_ pid: pid_t) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14, stime 15.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }
}
