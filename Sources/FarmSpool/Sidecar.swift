import FarmSystem

/// A job's progress sidecar, `progress/<job>.json`: what its owner is doing; the last one, what it
/// made, is the job's outcome record, kept on the job file (see Outcome.swift). Written only by the
/// job's current owner (tmp + rename, so readers never see half a file); read by `farm status` and
/// the live views. Not fsynced: after a power loss a missing sidecar only means a stale view until
/// the job moves again.
public struct Sidecar: Codable, Equatable, Sendable {
    public enum Status: String, Codable, Sendable {
        case downloading, unzipping, rendering, done, error
    }

    public var status: Status
    public var bytes: Int
    public var size: Int?
    /// jpg, png, pdf or zip, once the bytes are known.
    public var kind: String?
    /// Absolute path of the downloaded bytes.
    public var file: String?
    /// Absolute path of the display image.
    public var image: String?
    /// Absolute path of the display image's thumbnail (`<base>.thumb.png`), when one could be made;
    /// the display image itself when it is no larger than a thumbnail.
    public var thumb: String?
    public var error: String?
    public var attempts: Int
    /// When `status` last changed (ISO 8601).
    public var changed: String

    public init(status: Status, bytes: Int = 0, size: Int? = nil, kind: String? = nil, file: String? = nil,
                image: String? = nil, thumb: String? = nil, error: String? = nil, attempts: Int = 1,
                changed: String) {
        self.status = status
        self.bytes = bytes
        self.size = size
        self.kind = kind
        self.file = file
        self.image = image
        self.thumb = thumb
        self.error = error
        self.attempts = attempts
        self.changed = changed
    }

    /// The same bytes as `SpoolJSON.encode(self)`, without Foundation: keys in sorted order.
    func encoded() -> [UInt8] {
        var writer = FlatJSON.Writer(capacity: 160 + (file?.utf8.count ?? 0) + (image?.utf8.count ?? 0)
                                         + (thumb?.utf8.count ?? 0) + (error?.utf8.count ?? 0))
        writer.add("attempts", attempts)
        writer.add("bytes", bytes)
        writer.add("changed", changed)
        writer.add("error", error)
        writer.add("file", file)
        writer.add("image", image)
        writer.add("kind", kind)
        writer.add("size", size)
        writer.add("status", status.rawValue)
        writer.add("thumb", thumb)
        return writer.finish()
    }

    /// What JSONDecoder would make of the object: nil for a missing required key, a wrong type or
    /// an unknown status; unknown keys are ignored.
    static func decode(_ bytes: some Collection<UInt8>) -> Sidecar? {
        guard let object = FlatJSON.Object(bytes) else { return nil }
        return try? Sidecar(object)
    }

    private init(_ object: FlatJSON.Object) throws(FlatJSON.Mismatch) {
        guard let status = Status(rawValue: try object.string("status")) else { throw FlatJSON.Mismatch() }
        self.init(status: status, bytes: try object.int("bytes"), size: try object.optionalInt("size"),
                  kind: try object.optionalString("kind"), file: try object.optionalString("file"),
                  image: try object.optionalString("image"), thumb: try object.optionalString("thumb"),
                  error: try object.optionalString("error"), attempts: try object.int("attempts"),
                  changed: try object.string("changed"))
    }
}

extension Spool {
    public func sidecarPath(_ job: JobName) -> String { progress + "/" + job.raw + ".json" }

    /// The job whose progress sidecar is named `name` in progress/ (`<job>.json`); nil for any other name.
    public static func job(ofSidecarName name: String) -> JobName? {
        name.hasSuffix(".json") ? JobName(String(name.dropLast(5))) : nil
    }

    /// Replaces the sidecar of `job` atomically.
    public func writeSidecar(_ sidecar: Sidecar, for job: JobName) throws(SpoolError) {
        do { try AtomicFile.write(sidecar.encoded(), to: sidecarPath(job), stagingIn: tmp) } catch {
            throw SpoolError(.io, "cannot write the progress of \(job)", cause: error)
        }
    }

    /// The last sidecar of `job`: its outcome record once it finished, else its progress sidecar;
    /// nil when there is none (or it does not parse: it is rewritten soon).
    public func sidecar(_ job: JobName) -> Sidecar? {
        lastSidecar(job).flatMap { Sidecar.decode($0) }
    }

    /// Deletes the progress sidecar of `job`, if any: its outcome record supersedes it.
    public func removeSidecar(_ job: JobName) {
        try? FileSystem.unlink(sidecarPath(job))
    }
}
