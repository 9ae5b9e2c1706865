import FarmProcess
import FarmSpool

extension Control {
    /// What `stop` did.
    public struct Stopped: CustomStringConvertible, Sendable {
        public let spool: String
        /// The processes that were running.
        public let stopped: Int
        /// Jobs that were active and are queued again, their bytes kept.
        public let handedBack: Int
        /// Processes that ignored SIGTERM for the whole grace period and were killed.
        public let killed: Int
        /// Claimed jobs that could not be handed back (the log says why).
        public let stuck: Int
        /// Processes of other hosts that still run: only their host can stop them.
        public let elsewhere: Int

        public var description: String {
            guard stopped > 0 else { return "farm was not running on \(spool)" }
            return "farm stopped: \(stopped) process(es); \(handedBack) active job(s) back in the queue"
                + (stuck > 0 ? "; \(stuck) could not be handed back (see log/farm.log)" : "")
                + (killed > 0 ? "; \(killed) did not stop in time and were killed" : "")
                + (elsewhere > 0 ? "; \(elsewhere) process(es) of other hosts still run: run `farm stop` there" : "")
        }
    }

    /// What `reset` did.
    public struct Erased: CustomStringConvertible, Sendable {
        /// The processes that were running and were stopped first.
        public let stopped: Int

        public var description: String {
            "farm reset: the spool is empty" + (stopped > 0 ? " (stopped \(stopped) process(es))" : "")
        }
    }

    /// `farm stop`: every farm process ends, on every host of the spool; active jobs go back to the
    /// queue with their bytes kept.
    public func stop() throws(ControlError) -> Stopped {
        let report = try spoolCall { () throws(SpoolError) in try Shutdown.stopAll(spool) }
        return Stopped(spool: spool.root, stopped: report.stopped, handedBack: report.handedBack,
                       killed: report.killed, stuck: report.stuck, elsewhere: report.elsewhere)
    }

    /// `farm reset`: stops everything, then deletes every list, job, file and setting: the spool is as
    /// on first launch, its folders included (so watches and `farm start` find them).
    public func reset() throws(ControlError) -> Erased {
        let report = try spoolCall { () throws(SpoolError) in try Shutdown.stopAll(spool) }
        try spoolCall { () throws(SpoolError) in try spool.erase() }
        return Erased(stopped: report.stopped)
    }
}
