import Foundation

/// What a job file holds: one line of JSON, written once by the coordinator and only renamed after.
public struct JobRecord: Codable, Equatable, Sendable {
    /// The resource's URL, exactly as the manifest gave it (checked by the worker, not here).
    public var url: String
    /// The resource id: the manifest's `uuid` when it has one, else the job name.
    public var id: String

    public init(url: String, id: String) {
        self.url = url
        self.id = id
    }

    /// The same bytes as `SpoolJSON.encode(self)`, without Foundation (`farm add` writes up to 1M).
    func encoded() -> [UInt8] {
        var writer = FlatJSON.Writer(capacity: 24 + id.utf8.count + url.utf8.count)
        writer.add("id", id)
        writer.add("url", url)
        return writer.finish()
    }

    /// nil when the bytes are not a job record: the caller sets the file aside.
    static func decode(_ bytes: some Collection<UInt8>) -> JobRecord? {
        guard let object = FlatJSON.Object(bytes), let url = try? object.string("url"), !url.isEmpty,
              let id = try? object.string("id") else { return nil }
        return JobRecord(url: url, id: id)
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

/// How the spool writes its small JSON files: one line, sorted keys, slashes left alone.
public enum SpoolJSON {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// The spool's records hold only strings, numbers and booleans: encoding them cannot fail.
    public static func encode(_ value: some Encodable) -> [UInt8] {
        Array(try! encoder.encode(value)) + [0x0A]
    }
}
