import FarmJSON
import FarmSystem

// Where a job's progress sidecar is, `progress/<job>.json`: the record (`Sidecar`) is FarmRecords'.
extension Spool {
    public func sidecarPath(_ job: JobName) -> String { progress + "/" + job.raw + ".json" }

    /// The job whose progress sidecar is named `name` in progress/ (`<job>.json`); nil for any other name.
    public static func job(ofSidecarName name: String) -> JobName? {
        name.hasSuffix(".json") ? JobName(String(name.dropLast(5))) : nil
    }

    /// Replaces the sidecar of `job` atomically.
    public func writeSidecar(_ sidecar: Sidecar, for job: JobName) throws(SpoolError) {
        do { try writeWhole(sidecar.encoded(), to: sidecarPath(job)) } catch {
            throw SpoolError(.io, "cannot write the progress of \(job)", cause: error)
        }
    }

    /// The last sidecar of `job`: its outcome record once it finished with one of `outcomes`, else
    /// its progress sidecar; nil when there is none (or it does not parse: it is rewritten soon).
    public func sidecar(_ job: JobName, finished outcomes: [Outcome] = [.done, .failed]) -> Sidecar? {
        lastSidecar(job, finished: outcomes).flatMap { JSON.decode(Sidecar.self, from: $0) }
    }

    /// Deletes the progress sidecar of `job`, if any: its outcome record supersedes it.
    public func removeSidecar(_ job: JobName) {
        try? FileSystem.unlink(sidecarPath(job))
    }
}
