import FarmJSON

/// One list in the status (SPEC §4): its counts and state, and in the per-list view its resources.
public struct ListStatus: Equatable, Sendable {
    public enum State: String, Sendable {
        /// None of its resources has started.
        case queuing = "Queuing..."
        case downloading = "Downloading..."
        /// Every resource is done or failed.
        case finished = "Finished"
    }

    /// The list id (16 hex digits), as in `lists/<id>.json` and in job names.
    public var id: String
    public var name: String
    public var state: State
    public var total: Int
    public var queued: Int
    public var active: Int
    public var done: Int
    public var failed: Int
    /// done / total (1 for an empty list).
    public var progress: Double
    /// Only in the per-list view; absent from the whole-spool summary, which stays small.
    public var resources: [ResourceStatus]?

    /// The list's status from where its jobs are. Every job is in exactly one of queue/, active/,
    /// done/ and failed/, so the queued ones are what the other three leave of `total`.
    public init(id: String, name: String, total: Int, active: Int, done: Int, failed: Int,
                resources: [ResourceStatus]? = nil) {
        self.id = id
        self.name = name
        self.total = total
        self.active = active
        self.done = done
        self.failed = failed
        self.queued = max(0, total - active - done - failed)
        self.progress = total > 0 ? Double(done) / Double(total) : 1
        if done + failed >= total {
            state = .finished
        } else if active + done + failed == 0 {
            state = .queuing
        } else {
            state = .downloading
        }
        self.resources = resources
    }
}

/// Every key, `resources` only in the per-list view.
extension ListStatus: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("active", active)
        json.member("done", done)
        json.member("failed", failed)
        json.member("id", id)
        json.member("name", name)
        json.member("progress", progress)
        json.member("queued", queued)
        if let resources { json.member("resources", resources) }
        json.member("state", state.rawValue)
        json.member("total", total)
        json.endObject()
    }
}

extension ListStatus.State: JSONReadable {}

/// As written: the counts, state and progress are taken as they are, not derived again.
extension ListStatus: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        let state: State = try json.decode("state")
        self.init(id: try json.decode("id"), name: try json.decode("name"), total: try json.decode("total"),
                  active: try json.decode("active"), done: try json.decode("done"), failed: try json.decode("failed"),
                  resources: try json.decodeIfPresent("resources"))
        self.state = state
        queued = try json.decode("queued")
        progress = try json.decode("progress")
    }
}
