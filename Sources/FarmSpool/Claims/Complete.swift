import FarmSystem
import SystemPackage

extension Spool {
    /// Completes `claim` with one rename (PROTOCOL.md, "Complete"), `record` (its last
    /// sidecar) recorded first (see Outcome.swift). Returns whether the record is on the job file;
    /// false when there was none or it went to progress/. Throws `.leaseLost` when the job is no
    /// longer this owner's: then someone else has it, or an earlier owner completed it, and nothing
    /// was changed.
    @discardableResult
    public func complete(_ claim: Claim, _ outcome: Outcome, record: Sidecar? = nil) throws(SpoolError) -> Bool {
        let source = claimPath(claim)
        // Completed or not (lost to a reclaim), it is no longer this process's.
        defer { memberEnded(claim) }
        if FileSystem.refusesNoReplace, dropIfCompleted(source, claim.job) {
            throw SpoolError(.leaseLost, "job \(claim.job) was completed by an earlier owner")
        }
        var onJobFile = false
        if let record { onJobFile = try recordOutcome(record, of: claim) }
        try moveToFinished(claim, outcome)
        return onJobFile
    }

    /// Whether the job file at `path` (a claim of `job`) is also in done/ or failed/: a completion by
    /// link whose unlink lost the race with a reclaim (PROTOCOL.md, "Without RENAME_NOREPLACE") left that
    /// second name, which is then removed. Costs one stat where the file has no other name. Only for the
    /// `.link` fallback: a rename completes in one step.
    func dropIfCompleted(_ path: String, _ job: JobName) -> Bool {
        guard let st = try? FileSystem.lstat(path), st.linkCount > 1 else { return false }
        return [Outcome.done, .failed].contains { dropSecondName(path, of: finishedPath(job, $0)) }
    }

    /// Removes `path` when it is another name of the file at `other`; true when it did (or another
    /// process did first).
    @discardableResult
    package func dropSecondName(_ path: String, of other: String) -> Bool {
        guard let copy = try? FileSystem.lstat(path), let st = try? FileSystem.lstat(other),
              copy.deviceID == st.deviceID, copy.inode == st.inode else { return false }
        do { try FileSystem.unlink(path) } catch { return error == .noSuchFileOrDirectory }
        return true
    }
}

extension Spool {
    /// Moves the whole download at `partial` (`partialPath`) to `file`, an output of `job` named from
    /// `outputBase(job)`, making the list's output folder on its first job (not tried for every job).
    /// Not fsynced: the watcher syncs finished jobs every second (see Durability.swift).
    public func store(_ partial: String, as file: String, of job: JobName) throws(Errno) {
        do { try FileSystem.rename(partial, file) } catch where error == .noSuchFileOrDirectory {
            try FileSystem.ensureDirectory(outputDirectory(ofList: job.list))
            try FileSystem.rename(partial, file)
        }
    }

    /// Undoes `store` for a job handed back before it completed (the disk had no room to convert it):
    /// `file` goes back to `partial`, so the next owner resumes from its last byte, and the other outputs
    /// of `job` (derived images, an unpacked ZIP) are removed, so a job that is not done shows none. Reads
    /// the list's output folder: for that rare case only. The move is a link, which never replaces the
    /// partial another transfer of the URL may have made since (the download then goes: the next owner
    /// is served the URL's stored result, or transfers again). When the link fails otherwise nothing is
    /// removed: the next owner downloads again and replaces it all. `converted` false: nothing was made
    /// from the download yet (a worker stopping before its converter got to the job), so there is nothing
    /// else to remove and the folder is not read.
    public func unstore(_ file: String, to partial: String, of job: JobName, converted: Bool = true) {
        do { try FileSystem.link(file, partial) } catch where error == .fileExists {} catch { return }
        try? FileSystem.unlink(file)
        guard converted else { return }
        let directory = outputDirectory(ofList: job.list)
        for output in outputsByIndex(ofList: job.list)[job.index] ?? [] {
            try? FileSystem.removeTree(directory + "/" + output)
        }
    }

    /// The names in files/<list>/ by the index they start with (`3.jpg`, `3.thumb.png`, `3.unzipped`).
    public func outputsByIndex(ofList id: String) -> [Int: [String]] {
        var outputs: [Int: [String]] = [:]
        for name in FileSystem.names(outputDirectory(ofList: id)) {
            guard let index = name.split(separator: ".", maxSplits: 1).first.flatMap({ Int($0) }) else { continue }
            outputs[index, default: []].append(name)
        }
        return outputs
    }
}
