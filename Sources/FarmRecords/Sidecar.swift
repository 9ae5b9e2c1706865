import FarmJSON
import FarmSystem

/// A job's progress sidecar, `progress/<job>.json`: what its owner is doing; the last one, what it
/// made, is the job's outcome record, kept on the job file (see FarmSpool's Records/Outcome.swift). Written only by the
/// job's current owner (tmp + rename, so readers never see half a file); read by `farm status` and
/// the live views. Not fsynced: after a power loss a missing sidecar only means a stale view until
/// the job moves again.
@dynamicMemberLookup
public struct Sidecar: Equatable, Sendable {
    public enum Status: String, Sendable {
        case downloading, unzipping, rendering, done, error
    }

    public var status: Status
    /// Its bytes, kind, files, error and attempts (`sidecar.bytes` reads `details.bytes`).
    public var details: ResourceDetails
    /// When `status` last changed (ISO 8601).
    public var changed: String
    /// The validators of the response the file came from (its ETag, weak or strong, and Last-Modified, as
    /// the server sent them), when it sent them: what `farm sync` revalidates the resource with.
    public var etag: String?
    public var modified: String?
    /// Done from the bytes another job's transfer stored, with no transfer of its own (SPEC §7, download once).
    public var shared = false
    /// While the job waits out a back-off: the wall time before which it must not be tried again, by
    /// whichever owner has it then (see Retry.swift).
    public var retryAt: Double?
    /// Where the download was delivered (SPEC §12: the list's `--out`), once it was.
    public var delivered: String?
    /// The claim that wrote it (`Owner.raw`), in a progress sidecar: one an earlier owner left behind
    /// (the job was handed back or reclaimed since) says nothing of the job's present claim. Nil in an
    /// outcome record.
    public var owner: String?
    /// While the resource is fetched as pieces (SPEC §14): how many are done, held and in all.
    public var pieces: PieceCounts?
    /// Something its owner did that a user would want told, in one line: bytes kept from an earlier
    /// transfer dropped because the server's copy changed (SPEC §2).
    public var note: String?

    public init(status: Status, bytes: Int = 0, size: Int? = nil, kind: String? = nil, file: String? = nil,
                image: String? = nil, thumb: String? = nil, error: String? = nil, attempts: Int = 1,
                changed: String, etag: String? = nil, modified: String? = nil) {
        self.status = status
        details = ResourceDetails(bytes: bytes, size: size, kind: kind, file: file, image: image, thumb: thumb,
                                  error: error, attempts: attempts)
        self.changed = changed
        self.etag = etag
        self.modified = modified
    }

    /// The sidecar's bytes, as the file in progress/ and the outcome record hold them.
    package func encoded() -> [UInt8] {
        JSON.encode(self, capacity: 160 + details.textBytes + (etag?.utf8.count ?? 0)
                        + (modified?.utf8.count ?? 0) + (retryAt == nil ? 0 : 32) + (delivered?.utf8.count ?? 0)
                        + (owner?.utf8.count ?? 0) + (pieces == nil ? 0 : 48) + (note?.utf8.count ?? 0))
    }

    /// `sidecar.bytes` for `sidecar.details.bytes`, and so on: the details are a part of the sidecar's own.
    @inlinable public subscript<T>(dynamicMember path: WritableKeyPath<ResourceDetails, T>) -> T {
        get { details[keyPath: path] }
        set { details[keyPath: path] = newValue }
    }
}

/// What the sidecar does not know is left out.
/// Hand-written for speed: a worker writes one at every step of every job (bin/benchmark's worker jobs/s figure).
extension Sidecar: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("attempts", details.attempts)
        json.member("bytes", details.bytes)
        json.member("changed", changed)
        if let delivered { json.member("delivered", delivered) }
        if let error = details.error { json.member("error", error) }
        if let etag { json.member("etag", etag) }
        if let file = details.file { json.member("file", file) }
        if let image = details.image { json.member("image", image) }
        if let kind = details.kind { json.member("kind", kind) }
        if let modified { json.member("modified", modified) }
        if let note { json.member("note", note) }
        if let owner { json.member("owner", owner) }
        if let pieces { json.member("pieces", pieces) }
        if let retryAt { json.member("retryAt", retryAt) }
        if shared { json.member("shared", true) }
        if let size = details.size { json.member("size", size) }
        json.member("status", status.rawValue)
        if let thumb = details.thumb { json.member("thumb", thumb) }
        json.endObject()
    }
}

/// `status`, `bytes`, `attempts` and `changed` are required (every farm writes them). A status this
/// build does not know, from a newer worker, reads as `downloading`: the job is in its owner's hands,
/// and what else the sidecar says (bytes, size, kind) still shows.
extension Sidecar: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        // Matched here rather than by `init(rawValue:)`, whose table lookup costs more: the status
        // reads a sidecar for every job that left the queue.
        let status: Status
        switch try json.decode("status") as String {
        case "unzipping": status = .unzipping
        case "rendering": status = .rendering
        case "done": status = .done
        case "error": status = .error
        default: status = .downloading
        }
        self.init(status: status, bytes: try json.decode("bytes"),
                  size: try json.decodeIfPresent("size"), kind: try json.decodeIfPresent("kind"),
                  file: try json.decodeIfPresent("file"), image: try json.decodeIfPresent("image"),
                  thumb: try json.decodeIfPresent("thumb"), error: try json.decodeIfPresent("error"),
                  attempts: try json.decode("attempts"), changed: try json.decode("changed"),
                  etag: try json.decodeIfPresent("etag"), modified: try json.decodeIfPresent("modified"))
        shared = try json.decodeIfPresent("shared") ?? false
        retryAt = try json.decodeIfPresent("retryAt")
        delivered = try json.decodeIfPresent("delivered")
        owner = try json.decodeIfPresent("owner")
        pieces = try json.decodeIfPresent("pieces")
        note = try json.decodeIfPresent("note")
    }
}
