import FarmJSON
import FarmLists
import FarmSpool

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
    /// done / total (1 for an empty list), and the bytes of resources under way as their share of one
    /// resource each (`count(under:)`): a list of one large file moves with its bytes.
    public var progress: Double
    /// Its jobs are held out of the workers' reach (`farm get`'s ^C, aria2's pause of one download: Hold.swift
    /// in FarmSpool); they count as queued, as they are. `"held": true` in the JSON, absent when not.
    public var held = false
    /// The state as the screens show it: `Held` for a held list not finished, else the state's text.
    public var shownState: String { held && state != .finished ? "Held" : state.rawValue }
    /// What holds the list's work when nothing moves it on (`Stall`: no farm runs, or it is paused), set by
    /// a reader that looked (`held(by:)`): `"stall": "paused: farm resume"` in the JSON, absent when nothing
    /// holds it or the list is finished.
    public var stall: Stall?
    /// Only in the per-list view; absent from the whole-spool summary, which stays small. In a window
    /// of the view (`ListWindows`), only the resources of that window.
    public var resources: [ResourceStatus]?
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
    /// For a list read from a paged JSON API (SPEC §7): its pages, error, title and cover; nil otherwise.
    public var paging: Paging?
    /// What the list's requests carry (SPEC §12): header names, a cookie count, the proxy without its
    /// password; nil when nothing of their own.
    public var request: RequestSummary?
    /// A recursive list's counts per host, in the per-list view and its windows only (`HostCounts`); nil
    /// otherwise.
    public var hosts: [HostCounts]?

    /// The list's status from where its jobs are. Every job is in exactly one of queue/, active/,
    /// done/ and failed/, so the queued ones are what the other three leave of `total`. A paged list is
    /// not finished before its last page is in.
    public init(id: String, name: String, total: Int, active: Int, done: Int, failed: Int,
                resources: [ResourceStatus]? = nil, paging: Paging? = nil, request: RequestSummary? = nil) {
        self.id = id
        self.name = name
        self.total = total
        self.active = active
        self.done = done
        self.failed = failed
        self.queued = max(0, total - active - done - failed)
        self.progress = total > 0 ? Double(done) / Double(total) : 1
        if done + failed >= total && paging?.done != false {
            state = .finished
        } else if active + done + failed == 0 {
            state = .queuing
        } else {
            state = .downloading
        }
        self.resources = resources
        self.paging = paging
        self.request = request
    }

    /// The list with `stall` said, unless it is finished (nothing of it waits then).
    public func held(by stall: Stall?) -> ListStatus {
        var list = self
        list.stall = state == .finished ? nil : stall
        return list
    }

    /// Counts into `progress` the resources under way as `share` of a resource in all (each the part of
    /// its bytes in, from 0 to 1): (done + share) / total, short of 1 until the list is finished.
    public mutating func count(under share: Double) {
        guard total > 0, state != .finished, share > 0 else { return }
        progress = min(Double(done) + share, Double(done + active)) / Double(total)
    }

    /// The share of a resource that `status` of `bytes` out of `size` makes: its bytes' part while it
    /// downloads, all of it once they are in (it converts), none otherwise.
    public static func share(of status: ResourceStatus.Status, bytes: Int, size: Int?) -> Double {
        switch status {
        case .downloading: guard let size, size > 0 else { return 0 }
            return min(1, max(0, Double(bytes) / Double(size)))
        case .unzipping, .rendering: return 1
        case .queued, .done, .error: return 0
        }
    }
}

/// What a paged list shows of its pages (SPEC §7): `"pages": {"fetched": N, "done": bool}` (and the
/// items skipped for want of a URL), its `error`, and when the source gives them, its `title` and
/// `cover` (the cover's display image, null until it is made). A value.
public struct Paging: Equatable, Sendable {
    public var fetched: Int
    public var done: Bool
    public var skipped: Int
    /// Why the list stopped before its end (`page 3: …`).
    public var error: String?
    /// Shown when `--list-title` (`--list-cover`) was given: nil while nothing was found (or made).
    public var title: String?
    public var showsTitle: Bool
    public var cover: String?
    public var showsCover: Bool

    public init(fetched: Int, done: Bool, skipped: Int = 0, error: String? = nil, title: String? = nil,
                showsTitle: Bool = false, cover: String? = nil, showsCover: Bool = false) {
        self.fetched = fetched
        self.done = done
        self.skipped = skipped
        self.error = error
        self.title = title
        self.showsTitle = showsTitle
        self.cover = cover
        self.showsCover = showsCover
    }

    /// What list `record`'s page log says (`state`, its last line); nil for a list that is not paged.
    /// A paged list whose log cannot be read shows no page fetched, not done.
    public static func of(_ record: ListRecord, state: PageState?) -> Paging? {
        guard let source = record.paged else { return nil }
        return Paging(fetched: state?.fetched ?? 0, done: state?.done ?? false, skipped: state?.skipped ?? 0,
                      error: state?.error, title: state?.title, showsTitle: source.listTitle != nil,
                      cover: state?.cover, showsCover: source.listCover != nil)
    }

    /// `pages` of the list object.
    struct Pages: JSONWritable {
        let paging: Paging

        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.member("done", paging.done)
            json.member("fetched", paging.fetched)
            json.member("skipped", paging.skipped)
            json.endObject()
        }
    }
}

/// Every key, `resources` (and a recursive list's `hosts`) only in the per-list view and its windows, `request` only for a
/// list whose requests carry something of their own; `pages` and `error` only for a paged list, with
/// `title` and `cover` when its source gives them; `offset`, `limit` (and `query` and `matched` with a
/// search) only in a window.
extension ListStatus: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("active", active)
        if let paging, paging.showsCover { json.member("cover", paging.cover) }
        json.member("done", done)
        if let paging { json.member("error", paging.error) }
        json.member("failed", failed)
        if held { json.member("held", true) }
        if let hosts { json.member("hosts", hosts) }
        json.member("id", id)
        if let window { json.member("limit", window.limit) }
        if let matched = window?.matched { json.member("matched", matched) }
        json.member("name", name)
        if let window { json.member("offset", window.offset) }
        if let paging { json.member("pages", Paging.Pages(paging: paging)) }
        json.member("progress", progress)
        if let query = window?.query { json.member("query", query) }
        json.member("queued", queued)
        if let request { json.member("request", request) }
        if let resources { json.member("resources", resources) }
        if let stall { json.member("stall", stall.description) }
        json.member("state", state.rawValue)
        if let paging, paging.showsTitle { json.member("title", paging.title) }
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
                  resources: try json.decodeIfPresent("resources"), request: try json.decodeIfPresent("request"))
        if let pages = json["pages"], pages != .null {
            paging = Paging(fetched: try pages.decode("fetched"), done: try pages.decode("done"),
                            skipped: try pages.decodeIfPresent("skipped") ?? 0,
                            error: try json.decodeIfPresent("error"),
                            title: try json.decodeIfPresent("title"), showsTitle: json["title"] != nil,
                            cover: try json.decodeIfPresent("cover"), showsCover: json["cover"] != nil)
        }
        self.state = state
        held = try json.decodeIfPresent("held") ?? false
        hosts = try json.decodeIfPresent("hosts")
        stall = try json.decodeIfPresent("stall").flatMap { (text: String) in Stall(description: text) }
        queued = try json.decode("queued")
        progress = try json.decode("progress")
        if let offset: Int = try json.decodeIfPresent("offset") {
            window = Window(offset: offset, limit: try json.decode("limit"), query: try json.decodeIfPresent("query"),
                            matched: try json.decodeIfPresent("matched"))
        }
    }
}
