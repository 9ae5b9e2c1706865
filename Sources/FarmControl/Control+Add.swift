import FarmCoordinator
import FarmLists
import FarmSpool
import FarmTransfer

extension Control {
    /// What `add` did.
    public struct Added: CustomStringConvertible, Sendable {
        /// The lists enqueued now, with their resource counts.
        public let lists: [(name: String, total: Int)]
        /// The lists that were in the spool already with the same URLs: nothing was added for them.
        public let alreadyThere: [String]
        /// The paged lists added: the running farm follows their pages.
        public var followed: [String] = []
        /// Lists already there that this add gave other options (`--accept`, `--header`, `--out`, …): kept as they were.
        public var optionsIgnored: [String] = []

        /// A sentence for the lists added and one for those already there, when there are any.
        public var lines: [String] {
            var lines: [String] = []
            if !lists.isEmpty {
                lines.append("added \(lists.count) list(s), \(lists.reduce(0) { $0 + $1.total }) resource(s): "
                    + lists.map(\.name).joined(separator: ", "))
            }
            for name in followed {
                lines.append("added \(name): its pages are fetched while the farm runs (`farm start` if it does not)")
            }
            if !alreadyThere.isEmpty {
                lines.append("already in the spool, nothing added: " + alreadyThere.joined(separator: ", "))
            }
            if !optionsIgnored.isEmpty {
                lines.append("the options given now (--accept, --header, --out, …) were ignored: "
                    + optionsIgnored.joined(separator: ", ") + " keep(s) those it was added with "
                    + "(add it under another name to fetch it with these)")
            }
            return lines
        }

        public var description: String { lines.joined(separator: "; ") }
    }

    /// `farm add [SOURCE]`: the coordinator, in this process. Enqueues every resource of the manifest
    /// at `source` (a path or an http(s) URL; nil: the original app's), atomically. `progress` hears
    /// how many jobs are staged out of how many, every 10,000.
    /// `fresh`: its jobs download again even when their URL's result is stored (SPEC §7).
    /// `request`: what every request for its lists carries (SPEC §12; see `requestOptions`).
    /// `delivery`: where its done resources go too (SPEC §12; see `delivery(folder:template:)`).
    public func add(_ source: String?, fresh: Bool = false, request: RequestOptions? = nil, delivery: Delivery? = nil,
                    progress: (_ staged: Int, _ total: Int) -> Void = { _, _ in }) throws(ControlError) -> Added {
        do {
            let report = try Coordinator.add(source: source, to: spool, fresh: fresh, request: request,
                                             delivery: delivery, progress: progress)
            var added = Added(lists: report.added, alreadyThere: report.alreadyThere)
            added.optionsIgnored = report.optionsIgnored
            return added
        } catch {
            throw Self.controlError(error)
        }
    }

    /// `farm add URL --items … --url …`: records the paged JSON API `source` as list `name` (SPEC §7);
    /// the running farm follows its pages.
    public func add(paged source: PagedSource, name: String?, request: RequestOptions? = nil,
                    delivery: Delivery? = nil) throws(ControlError) -> Added {
        do {
            let report = try Coordinator.add(paged: source, name: name, to: spool, request: request,
                                             delivery: delivery)
            var added = Added(lists: [], alreadyThere: report.alreadyThere)
            added.followed = report.followed
            added.optionsIgnored = report.optionsIgnored
            return added
        } catch {
            throw Self.controlError(error)
        }
    }

    /// `farm add URL --recursive`: a list that starts with `crawl.start` and grows as its pages are fetched
    /// (SPEC §18); the start origin's robots.txt is fetched now.
    public func add(recursive crawl: CrawlSettings, name: String?, request: RequestOptions? = nil,
                    delivery: Delivery? = nil) throws(ControlError) -> Added {
        do {
            let report = try Coordinator.add(recursive: crawl, name: name, to: spool, request: request,
                                             delivery: delivery)
            return Added(lists: report.added, alreadyThere: report.alreadyThere)
        } catch {
            throw Self.controlError(error)
        }
    }

    private static func controlError(_ error: AddError) -> ControlError {
        switch error.code {
        case .malformed, .noSource, .unreadable, .unfetchable: ControlError(.manifestRefused, error.subject, cause: error)
        case .conflict: ControlError(.listConflict, error.subject, cause: error)
        default: ControlError(.spoolFailed, error.subject, cause: error)
        }
    }
}
