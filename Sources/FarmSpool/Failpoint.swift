import Glibc
import Synchronization

/// Named crash points for the crash-consistency tests, in the spirit of FreeBSD's fail points.
///
/// `FARM_FAILPOINT=claim.renamed` makes the process SIGKILL itself the first time it passes that
/// point; `FARM_FAILPOINT=add.staging@500` the 500th time. Unset (always, outside tests), a hit is
/// one comparison against nil.
enum Failpoint {
    private static let armed: (name: String, at: Int)? = {
        guard let value = getenv("FARM_FAILPOINT").map({ String(cString: $0) }), !value.isEmpty else { return nil }
        let parts = value.split(separator: "@", maxSplits: 1)
        return (String(parts[0]), parts.count > 1 ? Int(parts[1]) ?? 1 : 1)
    }()

    private static let hits = Atomic<Int>(0)

    static func hit(_ name: StaticString) {
        guard let armed, armed.name == name.description else { return }
        if hits.add(1, ordering: .relaxed).newValue >= armed.at { kill(getpid(), SIGKILL) }
    }
}
