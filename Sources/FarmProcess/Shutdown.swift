import FarmDedup
import FarmRegistry
import FarmSpool
import FarmSystem
import FoundationEssentials

/// `farm stop` (and the first half of `farm reset`): every farm process ends and every active job
/// goes back to the queue with its partial bytes kept, on every host of the spool. This host's
/// processes are signalled; another host's supervisor sees `control/stopping` within a tick and stops
/// its own host's processes (a pid means nothing across hosts).
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
        /// Processes of other hosts still running after the grace period (workers started there by
        /// hand, which no supervisor stops; or a host cut off from the spool): theirs to stop.
        public var elsewhere = 0
    }

    /// Marks the farm as stopping (so nobody restarts a supervisor, and every host's supervisor stops
    /// its processes), asks every process of this host to stop, waits up to `grace` seconds for the
    /// processes of every host to hand their jobs back, kills the rest of this host's and hands back
    /// whatever is not held by another host's live process. The stopping mark stays until the next `start`.
    public static func stopAll(_ spool: Spool, grace: Double = 15) throws(SpoolError) -> Report {
        try spool.control.setStopping(true)
        var report = Report()
        let claimed = spool.activeJobs().map(\.job)
        let running = spool.registry.processes()
        report.stopped = running.count
        for process in running where process.isLocal { Processes.send(.terminate, to: process.pid) }
        Clock.poll(every: 0.05, for: grace) { spool.registry.processes().isEmpty }
        var ours = Set(running.filter(\.isLocal).map(\.pid))
        for process in spool.registry.processes() where process.isLocal {
            Processes.send(.kill, to: process.pid)
            report.killed += 1
            ours.insert(process.pid)
        }
        // Nothing of this host runs now: every claim left but another host's live process's is an
        // orphan. (A SIGKILL'ed process's lock is released as it dies; wait for that before judging.)
        let killDeadline = Clock.monotonic() + 5
        Clock.poll(every: 0.02, for: 5) { !spool.registry.processes().contains(where: \.isLocal) }
        // A process leaves the registry a moment before it exits, and may still act in that moment (a
        // supervised one's hand-over starts a supervisor unless the farm is stopping): wait for the exits
        // too, so that none outlives the stop (nor writes into the spool `farm reset` empties next, where
        // no stop flag is left). A sanitizer's runtime, say, makes that moment a second.
        Clock.poll(every: 0.02, for: killDeadline - Clock.monotonic()) { ours.allSatisfy(Processes.hasEnded) }
        let (elsewhere, stuck) = finish(spool)
        report.elsewhere = elsewhere
        // What moved, not what was meant to: a claim that could not be moved is still in active/.
        report.handedBack = claimed.filter { spool.handedBack($0) != nil }.count
        report.stuck = stuck
        return report
    }

    /// The end of every stop, once this host's processes are gone (`stopAll`, or a supervisor stopped by a
    /// signal, which is `farm stop` too): every claim but another host's live process's is an orphan and
    /// goes back to the queue, and what writers killed half-way left is swept. Returns how many processes
    /// of other hosts still run, and how many claims could not be moved back (said in the log).
    @discardableResult
    public static func finish(_ spool: Spool) -> (elsewhere: Int, stuck: Int) {
        let elsewhere = spool.registry.processes().filter { !$0.isLocal }
        // Jobs, pieces and hooks: a killed runner's hook program is ended first (its group, on this host).
        spool.registry.releaseJobs(keeping: elsewhere)
        let stuck = spool.activeJobs().filter { job in !elsewhere.contains(where: job.owner.isClaimant) }
        if !stuck.isEmpty {
            spool.log("farm stop: \(stuck.count) claimed job(s) could not be handed back and stay in active/: "
                      + stuck.prefix(10).map(\.job.raw).joined(separator: ", "))
        }
        // Writers killed half-way (now, or any time before) leave temporaries nobody else removes.
        if elsewhere.isEmpty {
            spool.scratch.sweepTemporaries()
            Dedup(spool).sweepURLPartials()
        }
        return (elsewhere.count, stuck.count)
    }
}
