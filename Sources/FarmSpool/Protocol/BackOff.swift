import FarmJSON
import FarmSystem

// Attempts and back-offs carried by the outcome record on a job file outside done/ and failed/, which
// moves with the file to whoever has the job next (PROTOCOL.md, "Complete"); nothing else reads such a
// record there.
extension Spool {
    /// How many times the job `claim` holds was tried before this claim, and when it may be tried
    /// again: what the outcome record an earlier try or a `retry` left on its job file says, else none.
    public func triesBefore(_ claim: Claim) -> EarlierTries {
        guard !claim.isFresh, let bytes = sidecars.outcome(atPath: claimPath(claim)),
              let outcome = JSON.decode(Sidecar.self, from: bytes) else { return EarlierTries() }
        return EarlierTries(attempts: outcome.attempts, retryAt: outcome.retryAt)
    }

    /// Records on the job file of `claim` that `attempts` tries were made and the next must not start
    /// before `retryAt` (wall time). Throws `.leaseLost` when the job was reclaimed meanwhile.
    public func recordBackOff(_ claim: Claim, attempts: Int, retryAt: Double) throws(SpoolError) {
        // Downloading since the claim: a back-off is no change of status.
        var record = Sidecar(status: .downloading, attempts: attempts, changed: Timestamp.iso8601(claim.claimed))
        record.retryAt = retryAt
        _ = try recordOutcome(record, of: claim)
    }
}

/// What the tries before a claim left on its job file.
public struct EarlierTries: Sendable {
    public var attempts = 0
    /// Not before this wall time (a back-off), when set.
    public var retryAt: Double?
}
