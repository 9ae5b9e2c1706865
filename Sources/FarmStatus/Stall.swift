import FarmRegistry
import FarmSpool

/// What holds the queued work of a spool when nothing moves it on: no farm runs there, or the farm is
/// paused. `farm wait` says it once, `farm start` on a paused spool, `farm show` of a waiting resource and
/// `farm status LIST` too, each with the command that frees the work: without it a user met a wait that
/// blocked in silence and a resource that "is queued" for good (issue 66). A value; any thread.
public enum Stall: Sendable, Equatable, CustomStringConvertible {
    /// No supervisor and no worker on any host.
    case nothingRuns
    /// `farm pause`: transfers hold their bytes, nothing new is claimed.
    case paused
    /// Both: a `farm start` alone would leave the work paused.
    case nothingRunsAndPaused

    /// What holds the work of `spool` now, or nil when a farm runs unpaused. Looks at procs/ (a lock tried
    /// a process) and one control file: cheap, but not for every millisecond. Reads only: the views that
    /// ask (`farm wait`, `show`, `status`) change nothing in the spool, not even a dead process's entry.
    public static func of(_ spool: Spool) -> Stall? {
        let runs = spool.registry.scan().alive.contains { $0.role == .supervisor || $0.role == .worker }
        switch (runs, spool.control.isPaused) {
        case (true, false): return nil
        case (true, true): return .paused
        case (false, false): return .nothingRuns
        case (false, true): return .nothingRunsAndPaused
        }
    }

    /// The stall whose `description` is `text` (a view read back from its JSON), or nil.
    public init?(description text: String) {
        guard let stall = [Stall.nothingRuns, .paused, .nothingRunsAndPaused].first(where: { $0.description == text })
        else { return nil }
        self = stall
    }

    /// "nothing runs on this spool: farm start", "paused: farm resume".
    public var description: String {
        switch self {
        case .nothingRuns: "nothing runs on this spool: farm start"
        case .paused: "paused: farm resume"
        case .nothingRunsAndPaused: "nothing runs on this spool, and it is paused: farm start, then farm resume"
        }
    }
}
