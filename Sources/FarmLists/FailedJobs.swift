import FarmJSON
import FarmSpool
import FarmSystem

/// A job that failed for good, with what its job file and outcome record say.
public struct FailedJob: Sendable {
    public let job: JobName
    public let record: JobRecord
    /// Why it failed, as its outcome record says; nil when the record is missing or unreadable.
    public let reason: String?
    /// How many times it was tried, counting every earlier `retry`.
    public let attempts: Int
}

// A retried job keeps its outcome record on its job file when it goes back to the queue (a reload
// drops it): the worker that claims it next reads the attempts so far from it (`triesBefore`), so
// `attempts` counts every try across retries.
extension Lists {
    /// The jobs of list `id` that failed for good, in no particular order; those whose job file does
    /// not read are left out (the next claim or fsck sets them aside).
    public func failedJobs(ofList id: String) -> [FailedJob] {
        let directory = spool.finishedDirectory(id, .failed)
        let records = TableRecords(spool: spool)
        return FileSystem.names(directory).compactMap { name in
            guard let job = JobName(name), job.list == id,
                  let record = spool.jobRecord(atPath: directory + "/" + name, records: records) else { return nil }
            let outcome = spool.sidecars.outcome(atPath: directory + "/" + name)
                .flatMap { JSON.decode(Sidecar.self, from: $0) }
            return FailedJob(job: job, record: record, reason: outcome?.error, attempts: outcome?.attempts ?? 1)
        }
    }

    /// `farm retry`: sends the failed jobs `jobs` of list `id` back to the queue for another try,
    /// each after deleting what its last try left (outputs, sidecar, partial bytes); its outcome
    /// record stays on the job file for the attempts count. Returns how many went back: a job no
    /// longer failed (retried or reloaded meanwhile) is skipped. Killed half-way, each job is still
    /// failed (run it again) or queued.
    public func retry(_ jobs: [JobName], ofList id: String) throws(SpoolError) -> Int {
        let outputs = spool.outputsByIndex(ofList: id)
        var queued = 0
        for job in jobs where job.list == id {
            let path = spool.finishedPath(job, .failed)
            if try redo(path, job: job, outputs: outputs[job.index] ?? [], keepOutcome: true) { queued += 1 }
        }
        return queued
    }
}
