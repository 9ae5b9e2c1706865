import CFarmShims

/// A clean stop on SIGTERM (the supervisor's, `farm stop`'s), SIGINT (a human's ^C) or SIGHUP (their
/// terminal closed): the handler only sets a flag, which each long-running process polls between
/// short waits, so it ends on its own terms (job handed back, registration removed, no half-written
/// status, and a demo stops the farm it started).
public enum StopSignal {
    /// Installs the handlers and unblocks the signals (a process spawned from a thread that blocks
    /// them, as Dispatch's threads do, would otherwise never see one). Call before starting threads.
    public static func install() { cfarm_catch_stop_signals() }

    public static var received: Bool { cfarm_stop_signal() != 0 }
}
