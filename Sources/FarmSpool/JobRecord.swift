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

    func encoded() -> [UInt8] { SpoolJSON.encode(self) }

    /// nil when the bytes are not a job record: the caller sets the file aside.
    static func decode(_ bytes: [UInt8]) -> JobRecord? {
        guard let record = try? JSONDecoder().decode(JobRecord.self, from: Data(bytes)), !record.url.isEmpty
        else { return nil }
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
