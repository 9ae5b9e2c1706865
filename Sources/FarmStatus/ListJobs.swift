import FarmSystem

/// Where the jobs of one list are, apart from the queue (queued = total − the rest).
package struct ListJobs: Equatable, Sendable {
    package init() {}

    package var active = JobSet()
    package var done = JobSet()
    package var failed = JobSet()

    /// Each job counted once. A job moves from active/ to done/ or failed/ in one rename, but the readers
    /// of the spool see active/ and the finished folders one after the other (a scan reads active/ first;
    /// the watcher may write between a rescan and the events the rescan already saw): seen in both, it
    /// counts where it went, or the list's counts would add up to more than its total.
    package func settled() -> ListJobs {
        var jobs = self
        jobs.active.subtract(done)
        jobs.active.subtract(failed)
        return jobs
    }

    /// Job `index` counted where a row that shows it `status` puts it: rows are read after the folders,
    /// and a document's counts say what its rows say (SPEC §4).
    package mutating func place(_ index: Int, as status: ResourceStatus.Status) {
        active.remove(index)
        done.remove(index)
        failed.remove(index)
        switch status {
        case .queued: break
        case .downloading, .unzipping, .rendering: active.insert(index)
        case .done: done.insert(index)
        case .error: failed.insert(index)
        }
    }
}
