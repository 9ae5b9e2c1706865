import Glibc

/// The clocks of farm, in seconds as `Double`. Stateless; any thread.
public enum Clock {
    /// A clock that never jumps, for intervals, time-outs and rates.
    public static func monotonic() -> Double { read(CLOCK_MONOTONIC) }

    /// Seconds since the epoch: the clock file times and timestamps use.
    public static func wall() -> Double { read(CLOCK_REALTIME) }

    /// Seconds since the machine booted, time suspended included.
    public static func sinceBoot() -> Double { read(CLOCK_BOOTTIME) }

    /// Sleeps `seconds` (at most a minute); a signal may end it early.
    public static func sleep(_ seconds: Double) {
        usleep(UInt32(max(0, min(seconds, 60)) * 1e6))
    }

    /// Looks at `condition` every `interval` seconds until it holds (true) or `timeout` seconds have passed
    /// (false, after a last look). farm's one sleep-and-look loop, for what no change feed reports: a child's
    /// exit, another host's process, a registration a start waits milliseconds for (where an inotify
    /// instance would cost more than the wait: closing one waits for the kernel's RCU grace period).
    @discardableResult
    public static func poll(every interval: Double, for timeout: Double, until condition: () -> Bool) -> Bool {
        let deadline = monotonic() + timeout
        while true {
            if condition() { return true }
            let left = deadline - monotonic()
            if left <= 0 { return false }
            sleep(min(interval, left))
        }
    }

    private static func read(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
