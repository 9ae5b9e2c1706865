import FarmSpool
import FarmSystem
import Foundation
import Synchronization

/// Renews the lease of the claim its worker holds, every lease/4, on one thread that lives as long as
/// the worker: a thread per job cost a clone and, since each slept out its interval, left hundreds of
/// idle threads behind at a few hundred jobs a second.
/// `hold` and `release` are called by the worker thread; `lost` may be read from any thread (curl's callbacks).
final class LeaseKeeper: Sendable {
    private struct State {
        var claim: Claim?
        /// Bumped by every `hold`: a renewal that failed for an older claim marks nothing lost.
        var generation = 0
        var since = 0.0
        var lost = false
    }

    private let state = Mutex(State())

    init(spool: Spool, lease: Double) {
        let interval = max(0.05, lease / 4)
        Thread.detachNewThread { [self] in
            while true {
                Thread.sleep(forTimeInterval: interval / 2)
                let now = Clock.monotonic()
                let due: (Claim, Int)? = state.withLock { state in
                    guard let claim = state.claim, !state.lost, now - state.since >= interval else { return nil }
                    return (claim, state.generation)
                }
                guard let (claim, generation) = due else { continue }
                do throws(SpoolError) {
                    try spool.renew(claim)
                    state.withLock { if $0.generation == generation { $0.since = now } }
                } catch where error.code == .leaseLost {
                    state.withLock { if $0.generation == generation && $0.claim != nil { $0.lost = true } }
                } catch {
                    spool.log("cannot renew the lease of \(claim.job): \(error)")
                }
            }
        }
    }

    /// Starts keeping `claim` (just taken, so its lease is fresh).
    func hold(_ claim: Claim) {
        let now = Clock.monotonic()
        state.withLock { $0 = State(claim: claim, generation: $0.generation + 1, since: now, lost: false) }
    }

    /// The job is over (completed, failed or handed back): nothing to renew.
    func release() {
        state.withLock { $0.claim = nil }
    }

    /// The held job was reclaimed: its owner must stop and never complete it.
    var lost: Bool { state.withLock { $0.lost } }
}
