import Foundation

/// A job's progress sidecar, `progress/<job>.json`: what its owner is doing and, at the end, what it
/// made. Written only by the job's current owner (tmp + rename, so readers never see half a file);
/// read by the watcher and `farm status`. Not fsynced: after a power loss a missing sidecar only
/// means a stale view until the job moves again.
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
}

extension Spool {
    func sidecarPath(_ job: JobName) -> String { progress + "/" + job.raw + ".json" }

    /// Replaces the sidecar of `job` atomically.
    public func writeSidecar(_ sidecar: Sidecar, for job: JobName) throws(SpoolError) {
        let bytes = SpoolJSON.encode(sidecar)
        let temporary = tmp + "/" + job.raw + ".json." + hex(UInt64.random(in: .min ... .max)).prefix(8)
        do {
            try Sys.createFile(temporary, bytes)
            try Sys.rename(temporary, sidecarPath(job))
        } catch {
            try? Sys.unlink(temporary)
            throw SpoolError(.io, "cannot write the progress of \(job)", cause: error)
        }
    }

    /// The sidecar of `job`, or nil when there is none (or it does not parse: it is rewritten soon).
    public func sidecar(_ job: JobName) -> Sidecar? {
        guard let bytes = try? Sys.readFile(sidecarPath(job)) else { return nil }
        return try? JSONDecoder().decode(Sidecar.self, from: Data(bytes))
    }
}
