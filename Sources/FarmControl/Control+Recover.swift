import FarmDesired
import FarmHooks
import FarmLists
import FarmProcess
import FarmSpool

extension Control {
    /// What `recover` did.
    public struct Recovered: CustomStringConvertible, Sendable {
        /// Committed batches of dead adds whose lists it finished publishing.
        public let rolledForward: Int
        /// Stages of adds that died before their commit, deleted.
        public let discarded: Int
        /// Jobs whose lease had expired, back in the queue.
        public let reclaimed: Int
        /// Hooks whose runner's lease had expired, due again (SPEC §15: a hook runs at least once).
        public let hooksReclaimed: Int
        /// WARC files of dead writers finished (SPEC §18): their torn tails cut, their finished names given.
        public let warcFinished: Int

        public var description: String {
            "rolled forward \(rolledForward) batch(es), discarded \(discarded) abandoned stage(s), "
                + "reclaimed \(reclaimed) job(s)" + (hooksReclaimed > 0 ? " and \(hooksReclaimed) hook(s)" : "")
                + (warcFinished > 0 ? "; finished \(warcFinished) WARC file(s) of dead writers" : "")
        }
    }

    /// `farm recover`: finishes what dead processes left half-done, and hands back every claim (of a job
    /// or of a hook) not renewed for `lease` seconds. Without `lease`, the farm's own (the one it was
    /// started with): a shorter one would take jobs from live workers, which renew every quarter of theirs.
    public func recover(lease: Double? = nil) throws(ControlError) -> Recovered {
        let report = try spoolCall { () throws(SpoolError) in try Lists(spool).recover() }
        let lease = lease ?? spool.control.desired().lease
        let reclaimed = spool.reclaimExpired(lease: lease)
        // As the supervisor's start does: a spool tidied by `farm recover` alone (bin/crashstates' replays, a
        // user who does not start the farm) keeps no dead writer's `.open` WARC file with its torn tail.
        let warcFinished = DeadWARCWriters.finish(spool)
        return Recovered(rolledForward: report.batchesRolledForward, discarded: report.stagesDiscarded,
                         reclaimed: reclaimed.count + report.claimsOfAnEarlierBoot,
                         hooksReclaimed: spool.hooks.reclaimExpired(lease: lease), warcFinished: warcFinished)
    }
}
