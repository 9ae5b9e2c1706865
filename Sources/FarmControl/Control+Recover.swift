import FarmLists
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

        public var description: String {
            "rolled forward \(rolledForward) batch(es), discarded \(discarded) abandoned stage(s), "
                + "reclaimed \(reclaimed) job(s)"
        }
    }

    /// `farm recover`: finishes what dead processes left half-done, and hands back every claim not
    /// renewed for `lease` seconds. Without `lease`, the farm's own (the one it was started with):
    /// a shorter one would take jobs from live workers, which renew every quarter of theirs.
    public func recover(lease: Double? = nil) throws(ControlError) -> Recovered {
        let report = try spoolCall { () throws(SpoolError) in try Lists(spool).recover() }
        let reclaimed = spool.reclaimExpired(lease: lease ?? spool.desired().lease)
        return Recovered(rolledForward: report.batchesRolledForward, discarded: report.stagesDiscarded,
                         reclaimed: reclaimed.count + report.claimsOfAnEarlierBoot)
    }
}
