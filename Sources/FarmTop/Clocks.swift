import Glibc

/// The two clocks of `farm top`: a monotonic one for intervals (waits, rates), the wall clock for
/// the ages of resources (their `changed` timestamps). Stateless; any thread.
enum Clocks {
    static func monotonic() -> Double { now(CLOCK_MONOTONIC) }

    /// Seconds since the epoch.
    static func wall() -> Double { now(CLOCK_REALTIME) }

    private static func now(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
