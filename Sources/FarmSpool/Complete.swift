import SystemPackage

extension Spool {
    /// Completes `claim` with one rename (see "Complete" in the protocol), `record` (its last
    /// sidecar) recorded on the job file first (see Outcome.swift). Throws `.leaseLost` when the job
    /// is no longer this owner's: then someone else has it, and nothing was changed.
    public func complete(_ claim: Claim, _ outcome: Outcome, record: Sidecar? = nil) throws(SpoolError) {
        if let record { try recordOutcome(record, of: claim) }
        let source = activePath(claim.job, claim.owner)
        let directory = (outcome == .done ? done : failed) + "/" + claim.job.list
        let target = directory + "/" + claim.job.raw
        for _ in 0..<2 {
            do {
                try Sys.renameNoReplace(source, target)
                Failpoint.hit("complete.renamed")
                return
            } catch where error == .noSuchFileOrDirectory {
                guard Sys.exists(source) else {
                    throw SpoolError(.leaseLost, "job \(claim.job) was reclaimed before it completed")
                }
                try? Sys.ensureDirectory(directory)
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
