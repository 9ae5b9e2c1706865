import FarmSpool
import FarmSystem
import Foundation

/// `farm stop` (and the first half of `farm reset`): every farm process ends and every active job
/// goes back to the queue with its partial bytes kept.
public enum Shutdown {
    public struct Report: Sendable {
        /// Processes that were running.
        public var stopped = 0
        /// Jobs that were active and are queued again.
        public var handedBack = 0
        /// Jobs still claimed once everything stopped: they could not be moved back (said in the log).
        public var stuck = 0
        /// Processes that ignored SIGTERM for the whole grace period and were killed.
        public var killed = 0
    }

    /// Marks the farm as stopping (so nobody restarts the supervisor), asks every process to stop,
    /// waits up to `grace` seconds for them to hand their jobs back, kills the rest and hands back
    /// whatever they held. The stopping mark stays until the next `start`.
    public static func stopAll(_ spool: Spool, grace: Double = 15) throws(SpoolError) -> Report {
        try spool.setStopping(true)
        var report = Report()
        let claimed = spool.activeJobs().map(\.job)
        let running = spool.processes()
        report.stopped = running.count
        for process in running { Processes.send(.terminate, to: process.pid) }
        let deadline = Clock.monotonic() + grace
        while !spool.processes().isEmpty && Clock.monotonic() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        for process in spool.processes() {
            Processes.send(.kill, to: process.pid)
            report.killed += 1
        }
        // Nobody runs now: every claim left is an orphan. (A SIGKILL'ed process's lock is released
        // as it dies; wait for that before judging.)
        let killDeadline = Clock.monotonic() + 5
        while !spool.processes().isEmpty && Clock.monotonic() < killDeadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        spool.reclaimExpired(lease: -1)
        // What moved, not what was meant to: a claim that could not be moved is still in active/.
        report.handedBack = claimed.filter { spool.handedBack($0) != nil }.count
        let stuck = spool.activeJobs().map(\.job.raw)
        report.stuck = stuck.count
        if !stuck.isEmpty {
            spool.log("farm stop: \(stuck.count) claimed job(s) could not be handed back and stay in active/: "
                      + stuck.prefix(10).joined(separator: ", "))
        }
        // Writers killed half-way (now, or any time before) leave temporaries nobody else removes.
        spool.sweepTemporaries()
        return report
    }
}
