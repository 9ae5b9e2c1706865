import FarmSpool
import FarmSystem
import Foundation
import Glibc
import Synchronization

/// Arms one of the spool's failpoints from `FARM_FAILPOINT`, in the spirit of FreeBSD's fail points:
/// `FARM_FAILPOINT=claim.renamed` makes the process SIGKILL itself the first time it passes that point,
/// `FARM_FAILPOINT=add.staging@500` the 500th time. Set once, by `main`, before any spool is opened.
enum CrashPoint {
    private static let hits = Atomic<Int>(0)

    static func armFromEnvironment() {
        guard let value = ProcessInfo.processInfo.environment["FARM_FAILPOINT"], !value.isEmpty else { return }
        let parts = value.split(separator: "@", maxSplits: 1)
        let name = String(parts[0]), at = parts.count > 1 ? Int(parts[1]) ?? 1 : 1
        Failpoint.install { passed in
            guard passed == name else { return }
            if hits.add(1, ordering: .relaxed).newValue >= at { kill(getpid(), SIGKILL) }
        }
    }
}
