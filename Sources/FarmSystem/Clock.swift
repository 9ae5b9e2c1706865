import Glibc

/// The clocks of farm, in seconds as `Double`, and its one wait (`poll`, `pause`). Stateless; any thread.
public enum Clock {
    /// A clock that never jumps, for intervals, time-outs and rates.
    public static func monotonic() -> Double { read(CLOCK_MONOTONIC) }

    /// Seconds since the epoch: the clock file times and timestamps use.
    public static func wall() -> Double { read(CLOCK_REALTIME) }

    /// Seconds since the machine booted, time suspended included.
    public static func sinceBoot() -> Double { read(CLOCK_BOOTTIME) }

    /// How a wait ended.
    public enum Polled: Equatable, Sendable {
        /// The condition held.
        case ready
        /// The time-out passed, after a last look at the condition.
        case timedOut
        /// The give-up predicate said so (a stop asked for, the farm paused, a claim lost: the caller's).
        case gaveUp
    }

    /// Looks at `condition` every `interval` seconds until it holds (`ready`), `giveUp` says to stop waiting
    /// (`gaveUp`, looked at before each look at the condition), or `timeout` seconds have passed (`timedOut`,
    /// after a last look at both). farm's one sleep-and-look loop, for what no change feed reports: a child's
    /// exit, another process's claim or lock, a host's slot, a registration a start waits milliseconds for
    /// (where an inotify instance would cost more than the wait: closing one waits for the kernel's RCU grace
    /// period).
    ///
    /// Every wait in farm goes through it, so that each says what ends it: a wait that ignores a pause or
    /// a stop shows as a `giveUp` left out. `interval` is read before each sleep: a wait whose condition
    /// learns when to look next (a host's retry time, a token's) sets a variable it names. It allocates
    /// nothing: the closures do not escape. An error `condition` throws ends the wait.
    @discardableResult
    public static func poll<Failure: Error>(
        every interval: @autoclosure () -> Double, for timeout: Double = .infinity,
        unless giveUp: () -> Bool = { false }, until condition: () throws(Failure) -> Bool
    ) throws(Failure) -> Polled {
        let deadline = monotonic() + timeout
        while true {
            // Give-up first: a condition may take something (a lock, a host's slot) a wait given up must not.
            if giveUp() { return .gaveUp }
            if try condition() { return .ready }
            let left = deadline - monotonic()
            if left <= 0 { return .timedOut }
            sleep(min(interval(), left))
        }
    }

    /// Waits `seconds`, looking at `giveUp` every `step` seconds: true when the whole time passed, false when
    /// `giveUp` ended it. The pause between two looks of a loop that works at each (a back-off, a tick).
    @discardableResult
    public static func pause(_ seconds: Double, every step: Double = 0.1,
                             unless giveUp: () -> Bool = { false }) -> Bool {
        poll(every: step, for: seconds, unless: giveUp) { false } == .timedOut
    }

    /// Sleeps `seconds` (at most a minute); a signal may end it early. Only `poll` sleeps.
    private static func sleep(_ seconds: Double) {
        // Rounded up: a sleep cut a microsecond short would leave `poll` a last sleep of nothing.
        usleep(UInt32((max(0, min(seconds, 60)) * 1e6).rounded(.up)))
    }

    private static func read(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
