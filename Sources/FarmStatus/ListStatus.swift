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
    /// Only in the per-list view; absent from the whole-spool summary, which stays small. In a window
    /// of the view (`ListWindows`), only the resources of that window.
    public var resources: [ResourceStatus]?
    /// What the screens show above the list's grid (SPEC §9), in the per-list view when the list has them.
    public var title: String?
    public var cover: String?
    /// Which part of the view `resources` is, in a window of it (nil in the whole view).
    public var window: Window?

    /// A window of the per-list view: `limit` resources at most from position `offset` of the list, or
    /// of the resources that match `query`, of which there are `matched`.
    public struct Window: Equatable, Sendable {
        public var offset: Int
        public var limit: Int
        /// The search, lowercased and trimmed; nil for the whole list.
        public var query: String?
        /// How many resources match `query` (nil without one: then `total` sizes the window's list).
        public var matched: Int?

        public init(offset: Int, limit: Int, query: String? = nil, matched: Int? = nil) {
            self.offset = offset
            self.limit = limit
            self.query = query
            self.matched = matched
        }
    }

    /// How many resources the window's positions run over: the matches of its query, else every one.
    public var windowCount: Int { window?.matched ?? total }

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

/// Every key, `resources` only in the per-list view; `title` and `cover` only when the list has them;
/// `offset`, `limit` (and `query` and `matched` with a search) only in a window.
extension ListStatus: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("active", active)
        if let cover { json.member("cover", cover) }
        json.member("done", done)
        json.member("failed", failed)
        json.member("id", id)
        if let window { json.member("limit", window.limit) }
        if let matched = window?.matched { json.member("matched", matched) }
        json.member("name", name)
        if let window { json.member("offset", window.offset) }
        json.member("progress", progress)
        if let query = window?.query { json.member("query", query) }
        json.member("queued", queued)
        if let resources { json.member("resources", resources) }
        json.member("state", state.rawValue)
        if let title { json.member("title", title) }
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
        title = try json.decodeIfPresent("title")
        cover = try json.decodeIfPresent("cover")
        if let offset: Int = try json.decodeIfPresent("offset") {
            window = Window(offset: offset, limit: try json.decode("limit"), query: try json.decodeIfPresent("query"),
                            matched: try json.decodeIfPresent("matched"))
        }
    }
}
