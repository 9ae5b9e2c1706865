import FarmSpool
import FarmSystem
import SystemPackage

/// A token bucket shared by every process of a spool through one file: two doubles, the tokens and the
/// wall time they were counted at, read and written under an flock. It refills at `rate` a second up to
/// `burst`. The clock is read under the lock, and the stamp never goes back: a taker that read it before
/// waiting for the lock, behind others, would store an older stamp and so refill the time between twice;
/// another host's clock ahead of this one's keeps its stamp until this clock passes it.
struct SharedBucket {
    let spool: Spool
    let path: String

    /// Takes what there is of `wanted` tokens once at least `least` are there (or, without `take`, only
    /// looks): how many it took, and when it took none, the seconds until `least` will be there. nil when
    /// the file cannot be used (the caller goes on unlimited rather than stop the farm).
    func take(_ wanted: Double, least: Double, rate: Double, burst: Double, take: Bool = true)
        -> (taken: Double, wait: Double)? {
        guard let fd = try? HostManners(spool).openHostFile(path) else { return nil }
        defer { fd.closeQuietly() }
        do {
            try fd.lock()
            let now = Clock.wall()
            var state = (tokens: burst, stamp: now)
            var stored = [Double](repeating: 0, count: 2)
            let read = try stored.withUnsafeMutableBytes { bytes throws(Errno) in try fd.read(at: 0, into: bytes) }
            if read == 16 { state = (stored[0], stored[1]) }
            let tokens = min(burst, state.tokens + max(0, now - state.stamp) * rate)
            let taken = tokens >= least ? min(wanted, tokens) : 0
            let wait = tokens >= least ? 0 : (least - tokens) / rate
            guard take else { return (taken, wait) }
            stored = [tokens - taken, max(now, state.stamp)]
            _ = try stored.withUnsafeBytes { bytes throws(Errno) in try fd.write(contentsOf: bytes, at: 0) }
            return (taken, wait)
        } catch {
            spool.log("cannot use the token bucket \(path): \(error)")
            return nil
        }
    }
}
