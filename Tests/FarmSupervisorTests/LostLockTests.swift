import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A supervisor whose lock another process now holds steps down, leaving one supervisor on the host and
/// its workers to it. A GlusterFS server drops the locks of a client cut off for long enough and grants
/// them to the next asker (seen in bin/cluster: three supervisors on one host); here the lock file is
/// replaced, which frees the lock the same way for every process that opens it by name.
@Suite(.serialized) struct LostLockTests {
    @Test func aSupervisorWhoseLockWasTakenStepsDownAndTheWorkGoesOn() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Lock", count: 6, size: 300_000, rate: 300_000)
        try farm.start(workers: 2, lease: 3)
        let first = try #require(farm.pids(.supervisor).first)
        #expect(poll(timeout: 20) { farm.pids(.worker).count == 2 })

        let lock = farm.spool.control.supervisorLock
        let replacement = lock + ".new"
        #expect(FileManager.default.createFile(atPath: replacement, contents: nil))
        try FileSystem.rename(replacement, lock)

        // The guard of a worker or the watcher finds the new file free and starts a supervisor; the first
        // one sees that its lock is no longer the file's and leaves.
        #expect(poll(timeout: 15) {
            let supervisors = farm.pids(.supervisor)
            return supervisors.count == 1 && !supervisors.contains(first)
        }, "supervisors: \(farm.pids(.supervisor)), the first was \(first)")
        #expect(poll(timeout: 10) { Self.hasEnded(first) }, "the first supervisor \(first) still runs")
        let log = (try? String(contentsOfFile: farm.spool.logFile, encoding: .utf8)) ?? ""
        #expect(log.contains("pid \(first) supervisor lost its lock"))
        // Its workers were adopted, not doubled.
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.expectEverythingDownloadedOnce(paths, list: "Lock")
        #expect(farm.pids(.supervisor).count == 1)
        #expect(poll(timeout: 10) { farm.pids(.worker).count == 2 })
    }

    /// Gone, or a zombie its new parent has not reaped yet.
    private static func hasEnded(_ pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return true }
        return status.contains("State:\tZ")
    }
}
