import FarmDesired
import FarmSpool
import FarmProcess
import FarmSystem
import Glibc

extension Control {
    /// Seconds a claim may stay unrenewed before it is handed back: from 1 to 3600.
    public static let leaseRange = 1.0...3600.0

    /// What `start` did.
    public struct Started: CustomStringConvertible, Sendable {
        public let spool: String
        /// False when a supervisor already ran: then nothing was changed.
        public let started: Bool
        /// The supervisor's pid (when one already ran, if it could be seen).
        public let supervisor: pid_t?
        /// The workers running (when started here).
        public let workers: Int
        /// The transfers each runs at once.
        public let transfers: Int
        /// The farm is paused (`farm pause`, kept across stops): it runs, and downloads nothing.
        public var paused = false

        public var description: String {
            // A start that downloads nothing must say so, or the user waits on it (issue 66).
            let pausedNote = "the farm is paused: nothing downloads until `farm resume`"
            guard started else {
                return "farm is already running on \(spool)" + (supervisor.map { " (supervisor pid \($0))" } ?? "")
                    + "; nothing changed. " + (paused ? "But " + pausedNote + "." : "Use `farm scale N` to change the workers.")
            }
            return "farm started on \(spool): supervisor pid \(supervisor ?? 0), a watcher, "
                + Desired.atOnce(workers: workers, transfers: transfers) + (paused ? "; but " + pausedNote : "")
        }
    }

    /// Refuses settings for `start` outside their ranges (nil: keep the last one).
    public static func check(_ change: DesiredChange) throws(ControlError) {
        if let workers = change.workers { try check(workers: workers) }
        if let transfers = change.transfers { try check(transfers: transfers) }
        if let perHost = change.perHost, perHost < 0 { throw ControlError(.perHostOutOfRange, String(perHost)) }
        if let ratePerHost = change.ratePerHost, !(ratePerHost >= 0 && ratePerHost.isFinite) {
            throw ControlError(.rateOutOfRange, "\(ratePerHost)")
        }
        if let lease = change.lease, !leaseRange.contains(lease) { throw ControlError(.leaseOutOfRange, "\(lease)") }
        if let maxSize = change.maxSize, maxSize <= 0 { throw ControlError(.maxSizeOutOfRange, String(maxSize)) }
        if let minFree = change.minFree, minFree < 0 { throw ControlError(.minFreeOutOfRange, String(minFree)) }
    }

    /// `farm start`: the detached supervisor, its workers and the watcher, with `change` made to the desired
    /// state; returns once they all run. A farm that runs already is left as it is.
    /// `change.minFree`: the bytes the spool's file system keeps free, below which no new transfer starts
    /// (0: no limit; never set: 1 GiB or 5 % of the file system, whichever is smaller).
    public func start(_ change: DesiredChange = DesiredChange()) throws(ControlError) -> Started {
        try checkStart(change)
        let outcome = try spoolCall { () throws(SpoolError) in try Launch.start(spool, change, roles: startingRoles) }
        var started = switch outcome {
        case .alreadyRunning(let supervisor):
            Started(spool: spool.root, started: false, supervisor: supervisor, workers: 0, transfers: 0)
        case .started(let running):
            Started(spool: spool.root, started: true, supervisor: running.first { $0.role == .supervisor }?.pid,
                    workers: running.filter { $0.role == .worker }.count, transfers: spool.control.desired().transfers)
        }
        started.paused = spool.control.isPaused
        return started
    }

    /// `farm start --foreground` (systemd's farm@.service): `start` with this host's supervisor run in this
    /// process until `farm stop` or SIGTERM. Returns its exit status, or nil when a supervisor already ran:
    /// then nothing was changed.
    public func startInForeground(_ change: DesiredChange = DesiredChange()) throws(ControlError) -> Int32? {
        try checkStart(change)
        return try spoolCall { () throws(SpoolError) in try Launch.supervise(spool, change, roles: startingRoles) }
    }

    private func checkStart(_ change: DesiredChange) throws(ControlError) {
        if let caFile = change.caFile, !caFile.isEmpty, (try? FileSystem.checkReadable(caFile)) == nil {
            throw ControlError(.caFileUnreadable, caFile)
        }
        try Self.check(change)
    }
}
