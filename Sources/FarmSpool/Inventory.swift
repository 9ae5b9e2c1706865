import SystemPackage

/// Where a job is in its life, as the spool's directories say.
public enum JobState: String, Sendable, CaseIterable {
    case queued, active, done, failed
}

extension Spool {
    /// Every job the spool holds, with its state: a full scan, for recovery checks, one-shot
    /// status without a watcher, and tests. Names that do not parse are skipped, not set aside:
    /// a reader is never the one to move files.
    public func inventory() -> [(job: JobName, state: JobState)] {
        var jobs: [(JobName, JobState)] = []
        for batch in names(queue) where !batch.hasPrefix(".") {
            for shard in names(queue + "/" + batch) where !shard.hasPrefix(".") {
                for name in names(queue + "/" + batch + "/" + shard) {
                    if let job = JobName(name) { jobs.append((job, .queued)) }
                }
            }
        }
        for name in names(active) {
            if let entry = ActiveName(name) { jobs.append((entry.job, .active)) }
        }
        for (directory, state) in [(done, JobState.done), (failed, .failed)] {
            for list in names(directory) {
                for name in names(directory + "/" + list) {
                    if let job = JobName(name), job.list == list { jobs.append((job, state)) }
                }
            }
        }
        return jobs
    }

    /// The ids of the published lists.
    public func listIDs() -> [String] {
        names(lists).compactMap { name in
            guard name.hasSuffix(".json") else { return nil }
            let id = String(name.dropLast(5))
            return ListID.isValid(id) ? id : nil
        }
    }

    private func names(_ path: String) -> [String] {
        (try? Sys.listDirectory(path)) ?? []
    }
}
