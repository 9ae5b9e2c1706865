import FarmSpool
import FarmSystem
import FoundationEssentials
import Synchronization

/// Renews the lease of every claim its worker holds (the one it transfers and those waiting for or in
/// conversion), each every lease/4, on one thread that lives as long as the worker: a thread per job cost
/// a clone and, since each slept out its interval, left hundreds of idle threads behind at a few hundred
/// jobs a second. `hold` and `release` may be called from any thread (the worker's, its converter's).
final class LeaseKeeper: Sendable {
    /// One claim kept, with its own lost flag: whoever works on the claim looks at it (curl's
    /// callbacks, the converter), and a lost claim says nothing about the others.
    final class Kept: Sendable {
        let claim: Claim
        private let lostFlag = Atomic(false)

        fileprivate init(_ claim: Claim) { self.claim = claim }

        /// The claim was reclaimed: its owner must stop and never complete it.
        var lost: Bool { lostFlag.load(ordering: .acquiring) }

        fileprivate func markLost() { lostFlag.store(true, ordering: .releasing) }
    }

    /// The claims kept, by identity, with when each was last renewed (or taken).
    private let kept = Locked<[ObjectIdentifier: (claim: Kept, since: Double)]>([:])

    init(spool: Spool, lease: Double) {
        let interval = max(0.05, lease / 4)
        Threads.detach { [self] in
            while true {
                Clock.sleep(interval / 2)
                let now = Clock.monotonic()
                let due = kept.withLock { kept in
                    kept.values.filter { !$0.claim.lost && now - $0.since >= interval }.map(\.claim)
                }
                for claim in due {
                    do throws(SpoolError) {
                        try spool.renew(claim.claim)
                        kept.withLock { kept in
                            if kept[ObjectIdentifier(claim)] != nil { kept[ObjectIdentifier(claim)]?.since = now }
                        }
                    } catch where error.code == .leaseLost {
                        // A claim released meanwhile was completed or handed back by its owner: not lost.
                        kept.withLock { kept in if kept[ObjectIdentifier(claim)] != nil { claim.markLost() } }
                    } catch {
                        spool.log("cannot renew the lease of \(claim.claim.job): \(error)")
                    }
                }
            }
        }
    }

    /// Starts keeping `claim` (just taken, so its lease is fresh).
    func hold(_ claim: Claim) -> Kept {
        let held = Kept(claim)
        let now = Clock.monotonic()
        kept.withLock { $0[ObjectIdentifier(held)] = (held, now) }
        return held
    }

    /// The job is over (completed, failed or handed back): nothing to renew.
    func release(_ held: Kept) {
        _ = kept.withLock { $0.removeValue(forKey: ObjectIdentifier(held)) }
    }
}
