import FarmDesired
import FarmRegistry
import FarmSpool
import FarmSystem
import FoundationEssentials

extension Control {
    /// How many workers farm runs: from 1 to 64.
    public static let workerRange = Desired.workerRange
    /// How many transfers a worker runs at once: from 1 to 256.
    public static let transferRange = Desired.transferRange

    /// What `scale` did.
    public struct Scaled: CustomStringConvertible, Sendable {
        /// The workers now desired on `host`.
        public let workers: Int
        /// The transfers each worker runs at once, on every host.
        public let transfers: Int
        /// Whether a supervisor runs on `host` to apply it; if not, the next `farm start` there does.
        public let farmRuns: Bool
        /// The workers running on `host` when `scale` returned, when it waited for them (`settle`).
        public let running: Int?
        /// The host scaled; nil: this one (the sentences then name none).
        public let host: FarmHost?

        /// "scaled to 6 at once: 6 workers × 1": what is now in force, as every view shows it.
        public var description: String {
            let on = host.map { " on \($0)" } ?? ""
            let set = Desired.atOnce(workers: workers, transfers: transfers) + on
            guard farmRuns else {
                return "farm is not running\(on); `farm start` will run \(set)" + (host == nil ? "" : " there")
            }
            guard let running else { return "scaling to \(set)" }
            return running == workers ? "scaled to \(set)"
                : "asked for \(set); \(running) worker\(running == 1 ? "" : "s") running so far (busy workers hand back their job first)"
        }
    }

    /// Refuses a number of workers outside `workerRange`.
    public static func check(workers: Int) throws(ControlError) {
        guard workerRange.contains(workers) else { throw ControlError(.workersOutOfRange, String(workers)) }
    }

    /// Refuses a number of transfers a worker outside `transferRange`.
    public static func check(transfers: Int) throws(ControlError) {
        guard transferRange.contains(transfers) else { throw ControlError(.transfersOutOfRange, String(transfers)) }
    }

    /// `farm scale --transfers T`: how many transfers each worker of every host runs at once, which the
    /// running workers follow within a second (one with fewer hands back the jobs of its extra transfers).
    public func scale(transfers: Int) throws(ControlError) {
        try Self.check(transfers: transfers)
        try spoolCall { () throws(SpoolError) in
            var desired = spool.control.desired()
            desired.transfers = transfers
            try spool.control.setDesired(desired)
        }
    }

    /// `farm scale N`: the desired number of workers of `host` (nil: this one), which its supervisor
    /// applies within a second; the other hosts keep theirs. With `settle`, waits up to that many
    /// seconds for the host's running workers to match, so the outcome says what happened rather than
    /// what was asked; without, returns at once.
    public func scale(to workers: Int, settle: Double = 0, host: FarmHost? = nil) throws(ControlError) -> Scaled {
        try Self.check(workers: workers)
        let target = host ?? .local
        try spoolCall { () throws(SpoolError) in try spool.control.setDesiredWorkers(workers, of: target) }
        let named = target.isLocal ? nil : target
        let transfers = spool.control.desired().transfers
        guard spool.registry.processes().contains(where: { $0.host == target && $0.role == .supervisor }) else {
            return Scaled(workers: workers, transfers: transfers, farmRuns: false, running: nil, host: named)
        }
        guard settle > 0 else {
            return Scaled(workers: workers, transfers: transfers, farmRuns: true, running: nil, host: named)
        }
        var running = 0
        Clock.poll(every: 0.05, for: settle) {
            running = spool.registry.processes().filter { $0.host == target && $0.role == .worker }.count
            return running == workers
        }
        return Scaled(workers: workers, transfers: transfers, farmRuns: true, running: running, host: named)
    }
}
