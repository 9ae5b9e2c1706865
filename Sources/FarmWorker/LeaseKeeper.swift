import FarmSpool
import Foundation
import Synchronization

/// Renews the lease of one claim every lease/4 on a thread of its own, so a long download or
/// conversion never lets it expire; notices when the lease was lost.
/// Made and stopped by the worker thread; `lost` may be read from any thread (curl's callbacks).
final class LeaseKeeper: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let lostFlag = Atomic<Bool>(false)

    init(spool: Spool, claim: Claim, lease: Double) {
        let interval = max(0.05, lease / 4)
        Thread.detachNewThread { [self] in
            while !stopped.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: interval)
                if stopped.load(ordering: .relaxed) { break }
                do throws(SpoolError) {
                    try spool.renew(claim)
                } catch where error.code == .leaseLost {
                    lostFlag.store(true, ordering: .relaxed)
                    break
                } catch {
                    spool.log("cannot renew the lease of \(claim.job): \(error)")
                }
            }
        }
    }

    /// The job was reclaimed: its owner must stop and never complete it.
    var lost: Bool { lostFlag.load(ordering: .relaxed) }

    func stop() { stopped.store(true, ordering: .relaxed) }
}
