import FarmSpool

/// A job's last sidecar as the status reads it: its outcome record once it finished, else its
/// progress sidecar (`progress/<job>.json`). Read leniently, so one from a newer worker (an extra
/// field such as `thumb`, a status this build does not know) still shows. Read-only; the job's owner
/// writes it (see `Sidecar` and Outcome.swift in FarmSpool).
struct SidecarSnapshot {
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

    /// The sidecar of `job`, finished (`outcome`) or not, or nil when there is none or it does not
    /// parse (its owner rewrites it).
    static func read(_ spool: Spool, _ job: JobName, finished outcome: Outcome?) -> SidecarSnapshot? {
        spool.lastSidecar(job, finished: outcome.map { [$0] } ?? [])
            .flatMap { FlatJSON.Object($0) }.flatMap { try? SidecarSnapshot($0) }
    }

    /// As JSONDecoder would read it: only `status` is required; a value of the wrong type fails.
    private init(_ object: FlatJSON.Object) throws(FlatJSON.Mismatch) {
        status = try object.string("status")
        bytes = try object.optionalInt("bytes")
        size = try object.optionalInt("size")
        kind = try object.optionalString("kind")
        file = try object.optionalString("file")
        image = try object.optionalString("image")
        thumb = try object.optionalString("thumb")
        error = try object.optionalString("error")
        attempts = try object.optionalInt("attempts")
        changed = try object.optionalString("changed")
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
