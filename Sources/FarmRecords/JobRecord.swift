import FarmJSON
import FarmSystem

/// What a job file holds: one line of JSON, written once by the coordinator and only renamed after;
/// the lines of a list's resource table are the same records.
public struct JobRecord: Equatable, Sendable {
    /// The resource's URL, exactly as the manifest gave it (checked by the worker, not here).
    public var url: String
    /// The resource id: the manifest's `uuid` when it has one, else the job name.
    public var id: String
    /// What a paged source's `--title` and `--caption` found for the item (SPEC §7); nil otherwise.
    public var title: String?
    public var caption: String?
    /// Downloaded again even when the URL's valid result is stored (`farm add --fresh`, `farm reload`;
    /// see FarmDedup's protocol); its result becomes the URL's valid one.
    public var fresh = false
    /// The SHA-256 the download must have (SPEC §12), as 64 lowercase hex digits; nil when the list names none.
    public var sha256: String?
    /// No other job named the URL when it was added, nor did another in its add (SPEC §13): claimed from its
    /// add's batch, it downloads with no URL record or holder (FarmLists' URLSharing.swift).
    public var own = false
    /// The job marked `own` that named the URL before this one was added: this one waits for it, and is
    /// served from its output when it is done (URLSharing.swift).
    public var after: JobName?
    /// Other URLs of the same bytes (SPEC §14): the resource's pieces are spread over them and its URL.
    public var mirrors: [String] = []
    /// The name it is delivered under, the `{name}` of its list's template (SPEC §15: a text list's `out=`, an
    /// object's `"out"`); nil: the last segment of its URL's path.
    public var out: String?
    /// In a recursive list (SPEC §18): how many links from its start URL the crawl found it (0: the start
    /// URL), and what its link expected it to be read as (`expects`: "html", "css" or "html css"); nil in
    /// any other list, whose records keep their bytes.
    public var depth: Int?
    public var expects: String?

    public init(url: String, id: String, title: String? = nil, caption: String? = nil, sha256: String? = nil) {
        self.url = url
        self.id = id
        self.title = title
        self.caption = caption
        self.sha256 = sha256
    }

    /// The job file's bytes (`farm add` writes up to a million of them).
    package func encoded() -> [UInt8] {
        JSON.encode(self, capacity: 24 + id.utf8.count + url.utf8.count + (title?.utf8.count ?? 0)
                        + (caption?.utf8.count ?? 0) + (sha256 == nil ? 0 : 76) + (own ? 11 : 0)
                        + (after == nil ? 0 : 40) + mirrors.reduce(0) { $0 + $1.utf8.count + 3 }
                        + (out.map { $0.utf8.count + 9 } ?? 0) + (depth == nil ? 0 : 32))
    }
}

/// `after`, `title`, `caption`, `depth`, `expects`, `fresh`, `mirrors`, `out`, `own` and `sha256` only when there are some, so the records of
/// other lists keep their bytes; `url` last (URLSharing reads it from a line's end).
/// Hand-written for speed: job files are written by the million, read at every claim (bin/benchmark's claims figure).
extension JobRecord: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        if let after { json.member("after", after.raw) }
        if let caption { json.member("caption", caption) }
        if let depth { json.member("depth", depth) }
        if let expects { json.member("expects", expects) }
        if fresh { json.member("fresh", true) }
        json.member("id", id)
        if !mirrors.isEmpty { json.member("mirrors", mirrors) }
        if let out { json.member("out", out) }
        if own { json.member("own", true) }
        if let sha256 { json.member("sha256", sha256) }
        if let title { json.member("title", title) }
        json.member("url", url)
        json.endObject()
    }
}

/// `url` and `id` are required, and a job without a URL is not a job: a file that does not read is
/// set aside by whoever finds it.
extension JobRecord: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        url = try json.decode("url")
        id = try json.decode("id")
        title = try json.decodeIfPresent("title")
        caption = try json.decodeIfPresent("caption")
        fresh = try json.decodeIfPresent("fresh") ?? false
        own = try json.decodeIfPresent("own") ?? false
        mirrors = try json.decodeIfPresent("mirrors") ?? []
        out = try json.decodeIfPresent("out")
        depth = try json.decodeIfPresent("depth")
        expects = try json.decodeIfPresent("expects")
        if let earlier: String = try json.decodeIfPresent("after") {
            guard let job = JobName(earlier) else { throw JSONMismatch("\"after\": not a job name") }
            after = job
        }
        if url.isEmpty { throw JSONMismatch("\"url\": empty") }
        if let digest: String = try json.decodeIfPresent("sha256") {
            guard let sha256 = Hex.sha256(digest), sha256 == digest else {
                throw JSONMismatch("\"sha256\": not 64 lowercase hex digits")
            }
            self.sha256 = sha256
        }
    }
}

extension JobRecord {
    /// The record `bytes` hold, or nil when they do not read as one: the line `farm add` writes for most
    /// jobs, `{"id":"…","own":true,"url":"…"}` (`own` or not, no escapes, a newline or not), read in place; any other goes
    /// through the JSON parser. A claim reads one record a job, and the parser's tree of values was 2 % of
    /// a worker's CPU on small files. Inlinable, so that a claim's call from FarmSpool is specialized for its
    /// bytes' type, as it was when the records were FarmSpool's.
    @inlinable package static func decoded(from bytes: some Collection<UInt8>) -> JobRecord? {
        if let plain = bytes.withContiguousStorageIfAvailable({ plain($0) }), let plain { return plain }
        return JSON.decode(JobRecord.self, from: bytes)
    }

    @usableFromInline static func plain(_ bytes: UnsafeBufferPointer<UInt8>) -> JobRecord? {
        var at = 0
        func skip(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - at >= count else { return false }
            for offset in 0..<count where bytes[at + offset] != literal.utf8Start[offset] { return false }
            at += count
            return true
        }
        /// A string's body up to its closing quote; nil at an escape or a control byte (the parser's case).
        func string() -> String? {
            let start = at
            while at < bytes.count {
                switch bytes[at] {
                case 0x22:
                    defer { at += 1 }
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
                case 0x5C, 0..<0x20: return nil
                default: at += 1
                }
            }
            return nil
        }
        guard skip("{\"id\":\""), let id = string() else { return nil }
        let own = skip(",\"own\":true")
        guard skip(",\"url\":\""), let url = string(), !url.isEmpty, skip("}") else { return nil }
        let newline = skip("\n")
        // A repaired string (String(decoding:) replaces invalid UTF-8, which the parser refuses) is longer.
        guard at == bytes.count,
              url.utf8.count + id.utf8.count + (own ? 11 : 0) + (newline ? 1 : 0) + 18 == bytes.count else {
            return nil
        }
        var record = JobRecord(url: url, id: id)
        record.own = own
        return record
    }
}

/// A job to enqueue: where it goes (its name) and what it holds.
public struct NewJob: Sendable {
    public var name: JobName
    public var record: JobRecord

    public init(name: JobName, record: JobRecord) {
        self.name = name
        self.record = record
    }
}
