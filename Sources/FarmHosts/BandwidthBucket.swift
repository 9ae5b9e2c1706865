import FarmSpool

/// The allowance of bytes that every transfer of this host's workers shares under `--limit-rate` (SPEC
/// §12): a `SharedBucket` in control/, refilled at the cap and holding at most a tenth of a second of it,
/// so that the farm's rate stays within a few percent of the cap over any second or more.
public struct BandwidthBucket: Sendable {
    let spool: Spool

    public init(spool: Spool) {
        self.spool = spool
    }

    /// Up to `wanted` bytes at `rate` a second: what it gave (none while less than a hundredth of a
    /// second's worth is there, so that takers come back for sizable amounts), and when none, the seconds
    /// until there will be; everything wanted when the bucket cannot be used.
    public func take(_ wanted: Int, rate: Int) -> (granted: Int, wait: Double) {
        let least = Double(min(wanted, max(1, rate / 100)))
        guard let (taken, wait) = SharedBucket(spool: spool, path: spool.control.bandwidthBucketPath())
            .take(Double(wanted), least: least, rate: Double(rate), burst: Double(max(rate / 10, wanted)))
        else { return (wanted, 0) }
        return (Int(taken), wait)
    }
}
