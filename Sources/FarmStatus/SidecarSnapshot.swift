import FarmSpool

/// A progress sidecar (`progress/<job>.json`) as the status reads it: leniently, so a sidecar from a
/// newer worker (an extra field such as `thumb`, a status this build does not know) still shows.
/// Read-only; the job's owner writes it (see `Sidecar` in FarmSpool).
struct SidecarSnapshot: Decodable {
    var status: String
    var bytes: Int?
    var size: Int?
    var kind: String?
    var file: String?
    var image: String?
    var thumb: String?
    var error: String?
    var attempts: Int?
    var changed: String?

    /// The sidecar of `job`, or nil when there is none or it does not parse (its owner rewrites it).
    static func read(_ spool: Spool, _ job: JobName) -> SidecarSnapshot? {
        SpoolFiles.read(spool.progress + "/" + job.raw + ".json", limit: 1 << 16)
            .flatMap { StatusJSON.decode(SidecarSnapshot.self, from: $0) }
    }

    /// The status an owner reports; a status this build does not know is work in progress.
    var ownerStatus: ResourceStatus.Status {
        switch status {
        case "unzipping": return .unzipping
        case "rendering": return .rendering
        case "done": return .done
        case "error": return .error
        default: return .downloading
        }
    }
}
