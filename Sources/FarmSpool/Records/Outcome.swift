import FarmSystem
import SystemPackage

// A finished job's last sidecar (what it made, or why it failed) is its outcome record. It is kept
// as the extended attribute `user.farm.outcome` of the job file: set on active/<job>@<owner> just
// before the completion rename, it lands in done/ or failed/ with the job, in the same step, and it
// costs no file of its own (creating and renaming a file of its own would take a quarter of a short
// job's time). Where the file system has no user extended attributes, or the record does not fit, it
// is written to progress/<job>.json instead: readers look at the job file first, then there.
extension Spool {
    package static let outcomeAttribute = "user.farm.outcome"

    /// Records `sidecar` as the outcome of `claim`: on its active file (true), or in progress/
    /// (false). Throws `.leaseLost` when the active file is gone (the job was reclaimed).
    func recordOutcome(_ sidecar: Sidecar, of claim: Claim) throws(SpoolError) -> Bool {
        let path = claimPath(claim)
        do {
            try FileSystem.setAttribute(path, Self.outcomeAttribute, sidecar.encoded())
            return true
        } catch where error == .noSuchFileOrDirectory {
            throw SpoolError(.leaseLost, "job \(claim.job) was reclaimed before it completed")
        } catch {
            // No user xattrs here, or no room: the sidecar file instead, and no older record
            // (from an earlier owner of this job file) left to shadow it.
            try? FileSystem.removeAttribute(path, Self.outcomeAttribute)
            // Named after its claim, as the owner's progress sidecars: should the job come back to the
            // queue (a back-off's record, a retry), the status does not take it for its next claim's.
            var record = sidecar
            record.owner = claim.owner.raw
            try writeSidecar(record, for: claim.job)
            return false
        }
    }

    /// The outcome recorded on the job file at `path`, as its JSON bytes; nil when it has none.
    public func outcomeRecord(atPath path: String) -> [UInt8]? {
        try? FileSystem.attribute(path, Self.outcomeAttribute)
    }

    /// The JSON of the last sidecar of `job`: the outcome record on its job file if it ended with
    /// one of `outcomes`, else its progress sidecar; nil when there is neither. The one place that
    /// knows where to look.
    public func lastSidecar(_ job: JobName, finished outcomes: [Outcome] = [.done, .failed]) -> [UInt8]? {
        for outcome in outcomes {
            if let record = outcomeRecord(atPath: finishedPath(job, outcome)) { return record }
        }
        // No 64 KiB cap here: a record too big for an attribute is exactly what lands in progress/.
        return try? FileSystem.readFile(sidecarPath(job))
    }

    /// Drops the outcome recorded on the job file at `path` (a job going back to the queue).
    package func forgetOutcome(atPath path: String) {
        try? FileSystem.removeAttribute(path, Self.outcomeAttribute)
    }
}
