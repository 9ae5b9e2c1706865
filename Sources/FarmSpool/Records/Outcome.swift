import FarmSystem
import SystemPackage

// A finished job's last sidecar (what it made, or why it failed) is its outcome record. It is kept
// as the extended attribute `user.farm.outcome` of the job file: set on active/<job>@<owner> just
// before the completion rename, it lands in done/ or failed/ with the job, in the same step, and it
// costs no file of its own (creating and renaming a file of its own would take a quarter of a short
// job's time). Where the file system has no user extended attributes, or the record does not fit, it
// is written to progress/<job>.json instead: readers look at the job file first, then there
// (`SidecarFiles.lastRecord`).
extension Spool {
    /// Records `sidecar` as the outcome of `claim`: on its active file (true), or in progress/
    /// (false). Throws `.leaseLost` when the active file is gone (the job was reclaimed).
    func recordOutcome(_ sidecar: Sidecar, of claim: Claim) throws(SpoolError) -> Bool {
        let path = claimPath(claim)
        do {
            try FileSystem.setAttribute(path, SidecarFiles.outcomeAttribute, sidecar.encoded())
            return true
        } catch where error == .noSuchFileOrDirectory {
            throw SpoolError(.leaseLost, "job \(claim.job) was reclaimed before it completed")
        } catch {
            // No user xattrs here, or no room: the sidecar file instead, and no older record
            // (from an earlier owner of this job file) left to shadow it.
            try? FileSystem.removeAttribute(path, SidecarFiles.outcomeAttribute)
            // Named after its claim, as the owner's progress sidecars: should the job come back to the
            // queue (a back-off's record, a retry), the status does not take it for its next claim's.
            var record = sidecar
            record.owner = claim.owner.raw
            try sidecars.write(record, for: claim.job)
            return false
        }
    }
}
