import FarmJSON
import FarmSystem

/// Where a job's progress sidecar is, `progress/<job>.json`, and where its outcome record is: the extended
/// attribute `user.farm.outcome` of its job file, else its sidecar file (Outcome.swift). Reads and writes of
/// both; the record (`Sidecar`) is FarmRecords'. A part of a `Spool`, reached as `spool.sidecars`. A value;
/// any thread.
public struct SidecarFiles: Sendable {
    private let spool: Spool

    init(_ spool: Spool) { self.spool = spool }

    /// `progress/<job>.json`.
    public func path(_ job: JobName) -> String { spool.path(.progress, job.raw + ".json") }

    /// The job whose progress sidecar is named `name` in progress/ (`<job>.json`); nil for any other name.
    public static func job(ofName name: String) -> JobName? {
        name.hasSuffix(".json") ? JobName(String(name.dropLast(5))) : nil
    }

    /// Replaces the sidecar of `job` atomically.
    public func write(_ sidecar: Sidecar, for job: JobName) throws(SpoolError) {
        do { try spool.scratch.writeWhole(sidecar.encoded(), to: path(job)) } catch {
            throw SpoolError(.io, "cannot write the progress of \(job)", cause: error)
        }
    }

    /// The last sidecar of `job`: its outcome record once it finished with one of `outcomes`, else
    /// its progress sidecar; nil when there is none (or it does not parse: it is rewritten soon).
    public func last(_ job: JobName, finished outcomes: [Outcome] = [.done, .failed]) -> Sidecar? {
        lastRecord(job, finished: outcomes).flatMap { JSON.decode(Sidecar.self, from: $0) }
    }

    /// The JSON of the last sidecar of `job`: the outcome record on its job file if it ended with
    /// one of `outcomes`, else its progress sidecar; nil when there is neither. The one place that
    /// knows where to look.
    public func lastRecord(_ job: JobName, finished outcomes: [Outcome] = [.done, .failed]) -> [UInt8]? {
        for ended in outcomes {
            if let record = outcome(atPath: spool.finishedPath(job, ended)) { return record }
        }
        // No 64 KiB cap here: a record too big for an attribute is exactly what lands in progress/.
        return try? FileSystem.readFile(path(job))
    }

    /// Deletes the progress sidecar of `job`, if any: its outcome record supersedes it.
    public func remove(_ job: JobName) {
        try? FileSystem.unlink(path(job))
    }

    /// The extended attribute of a job file that holds its outcome record.
    package static let outcomeAttribute = "user.farm.outcome"

    /// The outcome recorded on the job file at `path`, as its JSON bytes; nil when it has none.
    public func outcome(atPath path: String) -> [UInt8]? {
        try? FileSystem.attribute(path, Self.outcomeAttribute)
    }

    /// Drops the outcome recorded on the job file at `path` (a job going back to the queue).
    package func forgetOutcome(atPath path: String) {
        try? FileSystem.removeAttribute(path, Self.outcomeAttribute)
    }
}

extension Spool {
    /// The progress sidecars and outcome records of jobs.
    public var sidecars: SidecarFiles { SidecarFiles(self) }
}
