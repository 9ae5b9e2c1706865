import FarmJSON

/// The whole-spool status of SPEC §4: every list with its counts, the workers and the paused flag.
///
/// A value: built by a scan (`StatusScan.summary`) or by the watcher, which writes it to
/// `status/summary.json` (`SummaryFile`); read by `farm status`, `farm wait`, `top` and `serve`.
/// Its size grows with the number of lists, never with the number of resources: the resources of a
/// list are only in the per-list view (`ListView`).
public struct StatusDocument: Equatable, Sendable {
    /// When this document was made (ISO 8601, UTC, milliseconds).
    public var updated: String
    public var paused: Bool
    public var workers: Workers
    /// In natural order of their names ("Set 2.json" before "Set 10.json").
    public var lists: [ListStatus]

    public init(updated: String, paused: Bool, workers: Workers, lists: [ListStatus]) {
        self.updated = updated
        self.paused = paused
        self.workers = workers
        self.lists = lists
    }

    /// Every list is Finished (true when there are none).
    public var isFinished: Bool { lists.allSatisfy { $0.state == .finished } }

    /// How many resources ended in `error`, over every list.
    public var failed: Int { lists.reduce(0) { $0 + $1.failed } }

    /// The list with this id, if any.
    public func list(id: String) -> ListStatus? { lists.first { $0.id == id } }
}

/// How many workers should run (control/desired.json) and how many do (procs/).
public struct Workers: Equatable, Sendable {
    public var desired: Int
    public var running: Int

    public init(desired: Int, running: Int) {
        self.desired = desired
        self.running = running
    }
}

extension StatusDocument: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("lists", lists)
        json.member("paused", paused)
        json.member("updated", updated)
        json.member("workers", workers)
        json.endObject()
    }
}

extension StatusDocument: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        self.init(updated: try json.decode("updated"), paused: try json.decode("paused"),
                  workers: try json.decode("workers"), lists: try json.decode("lists"))
    }
}

extension Workers: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("desired", desired)
        json.member("running", running)
        json.endObject()
    }
}

extension Workers: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        self.init(desired: try json.decode("desired"), running: try json.decode("running"))
    }
}
