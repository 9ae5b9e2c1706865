import FarmHooks
import FarmJSON
import FarmSpool

/// One resource of a list (SPEC §4), as the per-list view shows it.
///
/// Its `status` comes from where its job is: queued in queue/ (whatever stale sidecar an earlier
/// owner left), the sidecar's status in active/, `done` in done/, `error` in failed/.
@dynamicMemberLookup
public struct ResourceStatus: Equatable, Sendable {
    public enum Status: String, Sendable {
        case queued, downloading, unzipping, rendering, done, error
    }

    /// 0-based position in the list; the job is `<list id>.<index>`.
    public var index: Int
    /// The manifest's uuid, else the job name.
    public var id: String
    public var url: String
    public var status: Status
    /// What the app shows: "Queueing", "Downloading 45%", "Unzipping", "Rendering", "Done", "Error".
    public var text: String
    /// Its bytes, kind, files, error and attempts, as its sidecar says them (`resource.bytes` reads
    /// `details.bytes`).
    public var details: ResourceDetails
    /// When `status` last changed (ISO 8601); for a resource that has never run, when it was queued.
    /// Always set in what `ListView` builds (SPEC §4: never null).
    public var changed: String?
    /// What a paged source's `--title` and `--caption` found for it (SPEC §7), shown (null when nothing
    /// was found) when `labelled`: for the resources of paged lists only.
    public var title: String?
    public var caption: String?
    public var labelled = false
    /// Done from bytes the spool had already, with no transfer of its own (SPEC §7, download once);
    /// written only when set.
    public var shared = false
    /// Where a done resource was delivered (SPEC §12), shown (null until it is) when `delivers`: for
    /// the resources of lists with `--out` only.
    public var delivered: String?
    public var delivers = false
    /// While it is fetched as pieces (SPEC §14): how many are done, held and in all; written only then.
    public var pieces: PieceCounts?
    /// How its list's hook (SPEC §15) last ended for it, `{"exit": 3}`; written only once it has run.
    public var hook: HookResult?
    /// What its worker wants told (its bytes fetched again from the first, and why); written only when set.
    public var note: String?

    public init(index: Int, id: String, url: String, status: Status, bytes: Int = 0, size: Int? = nil,
                kind: String? = nil, file: String? = nil, image: String? = nil, thumb: String? = nil,
                error: String? = nil, attempts: Int = 0, changed: String? = nil, title: String? = nil,
                caption: String? = nil) {
        self.index = index
        self.id = id
        self.url = url
        self.status = status
        self.text = Self.text(status, bytes: bytes, size: size)
        details = ResourceDetails(bytes: bytes, size: size, kind: kind, file: file, image: image, thumb: thumb,
                                  error: error, attempts: attempts)
        self.changed = changed
        self.title = title
        self.caption = caption
    }

    /// The app's wording for a status. A download always shows a percentage (SPEC §4): 0% before its
    /// first byte, and while the server has not said how large it is.
    public static func text(_ status: Status, bytes: Int, size: Int?) -> String {
        switch status {
        case .queued: return "Queueing"
        case .downloading: return "Downloading \(percent(bytes: bytes, size: size) ?? 0)%"
        case .unzipping: return "Unzipping"
        case .rendering: return "Rendering"
        case .done: return "Done"
        case .error: return "Error"
        }
    }

    /// `resource.bytes` for `resource.details.bytes`, and so on, as a sidecar's.
    @inlinable public subscript<T>(dynamicMember path: WritableKeyPath<ResourceDetails, T>) -> T {
        get { details[keyPath: path] }
        set { details[keyPath: path] = newValue }
    }

    /// Whole percent downloaded (0 to 100), or nil when the size is unknown.
    public static func percent(bytes: Int, size: Int?) -> Int? {
        guard let size, size > 0 else { return nil }
        return min(100, max(0, Int(Double(bytes) * 100 / Double(size))))
    }
}

/// Every key, with null for what is unknown: readers see one shape whatever the status (`title` and
/// `caption` for the resources of paged lists only). Written by hand, not as a `JSONRecord`: a list's
/// view writes one per resource, and the Codable path took twice as long for a list of 20,000; so are
/// the list and the summary that hold them.
extension ResourceStatus: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("attempts", details.attempts)
        json.member("bytes", details.bytes)
        if labelled { json.member("caption", caption) }
        json.member("changed", changed)
        if delivers { json.member("delivered", delivered) }
        json.member("error", details.error)
        json.member("file", details.file)
        if let hook { json.member("hook", hook) }
        json.member("id", id)
        json.member("image", details.image)
        json.member("index", index)
        json.member("kind", details.kind)
        if let note { json.member("note", note) }
        if let pieces { json.member("pieces", pieces) }
        if shared { json.member("shared", true) }
        json.member("size", details.size)
        json.member("status", status.rawValue)
        json.member("text", text)
        json.member("thumb", details.thumb)
        if labelled { json.member("title", title) }
        json.member("url", url)
        json.endObject()
    }
}

extension ResourceStatus.Status: JSONReadable {}

/// As written: `text` is taken as it is, not derived again.
extension ResourceStatus: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        let status: Status = try json.decode("status")
        self.init(index: try json.decode("index"), id: try json.decode("id"), url: try json.decode("url"),
                  status: status, bytes: try json.decode("bytes"), size: try json.decodeIfPresent("size"),
                  kind: try json.decodeIfPresent("kind"), file: try json.decodeIfPresent("file"),
                  image: try json.decodeIfPresent("image"), thumb: try json.decodeIfPresent("thumb"),
                  error: try json.decodeIfPresent("error"), attempts: try json.decode("attempts"),
                  changed: try json.decodeIfPresent("changed"), title: try json.decodeIfPresent("title"),
                  caption: try json.decodeIfPresent("caption"))
        text = try json.decode("text")
        labelled = json["title"] != nil || json["caption"] != nil
        shared = try json.decodeIfPresent("shared") ?? false
        delivers = json["delivered"] != nil
        delivered = try json.decodeIfPresent("delivered")
        pieces = try json.decodeIfPresent("pieces")
        hook = try json.decodeIfPresent("hook")
        note = try json.decodeIfPresent("note")
    }
}
