import FarmSystem
import SystemPackage

extension Spool {
    /// Completes `claim` with one rename (see "Complete" in the protocol), `record` (its last
    /// sidecar) recorded first (see Outcome.swift). Returns whether the record is on the job file;
    /// false when there was none or it went to progress/. Throws `.leaseLost` when the job is no
    /// longer this owner's: then someone else has it, and nothing was changed.
    @discardableResult
    public func complete(_ claim: Claim, _ outcome: Outcome, record: Sidecar? = nil) throws(SpoolError) -> Bool {
        var onJobFile = false
        if let record { onJobFile = try recordOutcome(record, of: claim) }
        let source = activePath(claim.job, claim.owner)
        let directory = finishedDirectory(claim.job.list, outcome)
        let target = finishedPath(claim.job, outcome)
        for _ in 0..<2 {
            do {
                try FileSystem.renameNoReplace(source, target)
                Failpoint.hit("complete.renamed")
                return onJobFile
            } catch where error == .noSuchFileOrDirectory {
                guard FileSystem.exists(source) else {
                    throw SpoolError(.leaseLost, "job \(claim.job) was reclaimed before it completed")
                }
                try? FileSystem.ensureDirectory(directory)
            } catch where error == .fileExists {
                setAside(source, reason: "job \(claim.job) completed twice")
                throw SpoolError(.corrupt, "job \(claim.job) was already complete")
            } catch {
                throw SpoolError(.io, "cannot complete \(claim.job)", cause: error)
            }
        }
        throw SpoolError(.io, "cannot create \(directory)")
    }
}

extension Spool {
    /// Moves the whole download at `partial` (`partialPath`) to `file`, an output of `job` named from
    /// `outputBase(job)`, making the list's output folder on its first job (not tried for every job).
    /// Not fsynced: the watcher syncs finished jobs every few seconds (see Durability.swift).
    public func store(_ partial: String, as file: String, of job: JobName) throws(Errno) {
        do { try FileSystem.rename(partial, file) } catch where error == .noSuchFileOrDirectory {
            try FileSystem.ensureDirectory(outputDirectory(ofList: job.list))
            try FileSystem.rename(partial, file)
        }
    }

    /// Undoes `store` for a job handed back before it completed (the disk had no room to convert it):
    /// `file` goes back to `partial`, so the next owner resumes from its last byte, and the other outputs
    /// of `job` (derived images, an unpacked ZIP) are removed, so a job that is not done shows none. Reads
    /// the list's output folder: for that rare case only. When the rename fails nothing is removed: the
    /// next owner downloads again and replaces it all.
    public func unstore(_ file: String, to partial: String, of job: JobName) {
        guard (try? FileSystem.rename(file, partial)) != nil else { return }
        let directory = outputDirectory(ofList: job.list)
        for output in outputsByIndex(ofList: job.list)[job.index] ?? [] {
            try? FileSystem.removeTree(directory + "/" + output)
        }
    }
}
