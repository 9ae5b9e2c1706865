import FarmSystem

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
        forEachQueued { _, name in
            if let job = JobName(name) { jobs.append((job, .queued)) }
        }
        for name in claimedNames() {
            if let entry = ActiveName(name) { jobs.append((entry.job, .active)) }
        }
        for (directory, state) in [(done, JobState.done), (failed, .failed)] {
            for list in FileSystem.names(directory) {
                for name in FileSystem.names(directory + "/" + list) {
                    if let job = JobName(name), job.list == list { jobs.append((job, state)) }
                }
            }
        }
        return jobs
    }

    /// Calls `body` with the folder and name of every entry of every queue shard
    /// (`queue/<batch>/<shard>/<name>`), names that are not jobs included: the one walk of the whole
    /// queue, for readers (claims read one shard at a time: see Claimer).
    public func forEachQueued(_ body: (_ shard: String, _ name: String) -> Void) {
        for batch in FileSystem.names(queue) where !batch.hasPrefix(".") {
            for shard in FileSystem.names(queue + "/" + batch) where !shard.hasPrefix(".") {
                let directory = queue + "/" + batch + "/" + shard
                for name in FileSystem.names(directory) { body(directory, name) }
            }
        }
    }
}
