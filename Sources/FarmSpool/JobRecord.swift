import FarmJSON

/// What a job file holds: one line of JSON, written once by the coordinator and only renamed after;
/// the lines of a list's resource table are the same records.
public struct JobRecord: Equatable, Sendable {
    /// The resource's URL, exactly as the manifest gave it (checked by the worker, not here).
    public var url: String
    /// The resource id: the manifest's `uuid` when it has one, else the job name.
    public var id: String

    public init(url: String, id: String) {
        self.url = url
        self.id = id
    }

    /// The job file's bytes (`farm add` writes up to a million of them).
    func encoded() -> [UInt8] {
        JSON.encode(self, capacity: 24 + id.utf8.count + url.utf8.count)
    }
}

extension JobRecord: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("id", id)
        json.member("url", url)
        json.endObject()
    }
}

/// Both members are required, and a job without a URL is not a job: a file that does not read is
/// set aside by whoever finds it.
extension JobRecord: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        url = try json.decode("url")
        id = try json.decode("id")
        if url.isEmpty { throw JSONMismatch("\"url\": empty") }
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
