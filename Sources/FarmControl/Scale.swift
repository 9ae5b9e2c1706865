import FarmSpool
import Foundation

extension Control {
    /// How many workers farm runs: from 1 to 64.
    public static let workerRange = Desired.workerRange

    /// What `scale` did.
    public struct Scaled: CustomStringConvertible, Sendable {
        /// The workers now desired.
        public let workers: Int
        /// Whether a supervisor runs to apply it; if not, the next `farm start` does.
        public let farmRuns: Bool
        /// The workers running when `scale` returned, when it waited for them (`settle`).
        public let running: Int?

        public var description: String {
            guard farmRuns else { return "farm is not running; `farm start` will start \(workers) workers" }
            guard let running else { return "scaling to \(workers) workers" }
            return running == workers ? "scaled to \(workers) workers"
                : "asked for \(workers) workers; \(running) running so far (busy workers hand back their job first)"
        }
    }

    /// Refuses a number of workers outside `workerRange`.
    public static func check(workers: Int) throws(ControlError) {
        guard workerRange.contains(workers) else { throw ControlError(.workersOutOfRange, String(workers)) }
    }

    /// `farm scale N`: the desired number of workers, which the supervisor applies within a second.
    /// With `settle`, waits up to that many seconds for the running workers to match, so the outcome
    /// says what happened rather than what was asked; without, returns at once.
    public func scale(to workers: Int, settle: Double = 0) throws(ControlError) -> Scaled {
        try Self.check(workers: workers)
        var desired = spool.desired()
        desired.workers = workers
        try spoolCall { () throws(SpoolError) in try spool.setDesired(desired) }
        guard spool.processes().contains(where: { $0.role == .supervisor }) else {
            return Scaled(workers: workers, farmRuns: false, running: nil)
        }
        guard settle > 0 else { return Scaled(workers: workers, farmRuns: true, running: nil) }
        let deadline = Date().addingTimeInterval(settle)
        var running = 0
        repeat {
            running = spool.processes().filter { $0.role == .worker }.count
            if running == workers { break }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return Scaled(workers: workers, farmRuns: true, running: running)
    }
}
