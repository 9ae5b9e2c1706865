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
        /// When the lease was last renewed (or the claim taken), in milliseconds of `Clock.monotonic`.
        private let renewedAt: Atomic<Int>
        /// Half the lease: a renewal this late is no longer routine (they come every quarter lease).
        private let lateAfter: Double

        fileprivate init(_ claim: Claim, lease: Double) {
            self.claim = claim
            renewedAt = Atomic(Self.milliseconds(Clock.monotonic()))
            lateAfter = lease / 2
        }

        /// When the lease was last renewed, in seconds of `Clock.monotonic`.
        fileprivate var renewed: Double { Double(renewedAt.load(ordering: .relaxed)) / 1000 }

        /// The claim was reclaimed: its owner must stop and never complete it.
        var lost: Bool { lostFlag.load(ordering: .acquiring) }

        /// Whether the claim is still this owner's, asked before a step that would replace what a next
        /// owner made (the URL's blob, the job's output). A renewal that came in time says so with no
        /// system call; a late one (a host cut off from the spool, whose calls blocked and now return)
        /// gets one stat of the claim's file, as the renewals may not have looked since the reclaim. A
        /// claim found gone is lost from then on.
        func isHeld(in spool: Spool) -> Bool {
            if lost { return false }
            if Clock.monotonic() - renewed < lateAfter { return true }
            if spool.holds(claim) { return true }
            markLost()
            return false
        }

        fileprivate func markLost() { lostFlag.store(true, ordering: .releasing) }

        fileprivate func renewed(at time: Double) { renewedAt.store(Self.milliseconds(time), ordering: .relaxed) }

        private static func milliseconds(_ time: Double) -> Int { Int(time * 1000) }
    }

    /// The claims kept, by identity.
    private let kept = Locked<[ObjectIdentifier: Kept]>([:])

    private let lease: Double

    init(spool: Spool, lease: Double) {
        self.lease = lease
        let interval = max(0.05, lease / 4)
        Threads.detach { [self] in
            while true {
                // Never ended, not by a pause either: a paused transfer keeps its lease.
                Clock.pause(interval / 2, every: interval / 2)
                let now = Clock.monotonic()
                let due = kept.withLock { kept in
                    kept.values.filter { !$0.lost && now - $0.renewed >= interval }
                }
                for claim in due {
                    do throws(SpoolError) {
                        try spool.renew(claim.claim)
                        claim.renewed(at: now)
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
        let held = Kept(claim, lease: lease)
        kept.withLock { $0[ObjectIdentifier(held)] = held }
        return held
    }

    /// The job is over (completed, failed or handed back): nothing to renew.
    func release(_ held: Kept) {
        _ = kept.withLock { $0.removeValue(forKey: ObjectIdentifier(held)) }
    }
}
