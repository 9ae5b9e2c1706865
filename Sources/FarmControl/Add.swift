import FarmCoordinator
import FarmSpool

extension Control {
    /// What `add` did.
    public struct Added: CustomStringConvertible, Sendable {
        /// The lists enqueued now, with their resource counts.
        public let lists: [(name: String, total: Int)]
        /// The lists that were in the spool already with the same URLs: nothing was added for them.
        public let alreadyThere: [String]

        /// A sentence for the lists added and one for those already there, when there are any.
        public var lines: [String] {
            var lines: [String] = []
            if !lists.isEmpty {
                lines.append("added \(lists.count) list(s), \(lists.reduce(0) { $0 + $1.total }) resource(s): "
                    + lists.map(\.name).joined(separator: ", "))
            }
            if !alreadyThere.isEmpty {
                lines.append("already in the spool, nothing added: " + alreadyThere.joined(separator: ", "))
            }
            return lines
        }

        public var description: String { lines.joined(separator: "; ") }
    }

    /// `farm add [SOURCE]`: the coordinator, in this process. Enqueues every resource of the manifest
    /// at `source` (a path or an http(s) URL; nil: the original app's), atomically. `progress` hears
    /// how many jobs are staged out of how many, every 10,000.
    public func add(_ source: String?, progress: (_ staged: Int, _ total: Int) -> Void = { _, _ in })
        throws(ControlError) -> Added {
        do {
            let report = try Coordinator.add(source: source, to: spool, progress: progress)
            return Added(lists: report.added, alreadyThere: report.alreadyThere)
        } catch {
            switch error.code {
            case .malformed, .unreadable, .unfetchable:
                throw ControlError(.manifestRefused, error.subject, cause: error)
            case .conflict: throw ControlError(.listConflict, error.subject, cause: error)
            default: throw ControlError(.spoolFailed, error.subject, cause: error)
            }
        }
    }
}
