import FarmSystem
import Synchronization

/// A cap on the bytes a second of every transfer of a pool together (SPEC §12: `--limit-rate`), shared
/// with the other processes of the host through `take`, which hands out bytes of a common allowance.
/// `rate` may change at any time, from any thread (`farm limit`); 0 lifts the cap.
public final class Bandwidth: Sendable {
    public let rate = Atomic<Int>(0)
    /// Asks the common allowance for up to `wanted` bytes at `rate` a second: how many it gave (maybe
    /// none), and when none, the seconds until some will be there.
    let take: @Sendable (_ wanted: Int, _ rate: Int) -> (granted: Int, wait: Double)

    public init(take: @escaping @Sendable (_ wanted: Int, _ rate: Int) -> (granted: Int, wait: Double)) {
        self.take = take
    }
}

/// The pool's side of a `Bandwidth`, on the pool's thread alone: bytes taken from the common allowance
/// and not yet received (a transfer may overdraw it by one write of curl's, at most 16 KiB, and pays it
/// back before the next), and the transfers paused until there is more.
struct BandwidthPocket {
    private var bytes = 0
    /// Paused transfers, each with the monotonic time to try it again.
    private(set) var paused: [(curl: UnsafeMutableRawPointer, until: Double)] = []

    /// Whether a transfer may take `count` bytes now; when not, it is to be paused (`CURL_WRITEFUNC_PAUSE`)
    /// and is remembered to be let go again.
    mutating func admit(_ count: Int, of curl: UnsafeMutableRawPointer, _ bandwidth: Bandwidth) -> Bool {
        let rate = bandwidth.rate.load(ordering: .relaxed)
        guard rate > 0 else { return true }
        if bytes <= 0 {
            // A twentieth of a second's worth at a time: few looks at the common allowance, and no
            // process holds much of it unused.
            let (granted, wait) = bandwidth.take(max(count, rate / 20) - bytes, rate)
            bytes += granted
            if bytes <= 0 {
                paused.append((curl, Clock.monotonic() + max(wait, 0.001)))
                return false
            }
        }
        bytes -= count
        return true
    }

    /// The transfers whose pause is over, taken out of the list (each to be resumed with curl_easy_pause).
    mutating func due(now: Double) -> [UnsafeMutableRawPointer] {
        let due = paused.filter { $0.until <= now }.map(\.curl)
        paused.removeAll { $0.until <= now }
        return due
    }

    /// Forgets a transfer that ended.
    mutating func forget(_ curl: UnsafeMutableRawPointer) { paused.removeAll { $0.curl == curl } }

    /// Milliseconds until the first paused transfer is due, if any.
    func nextDue(now: Double) -> Int32? {
        paused.map(\.until).min().map { Int32(max(0, min(1000, ($0 - now) * 1000)).rounded(.up)) }
    }
}
