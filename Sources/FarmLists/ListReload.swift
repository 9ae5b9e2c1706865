import FarmJSON
import FarmSpool
import FarmSystem
import SystemPackage

extension Lists {
    /// `farm reload LIST`: every finished job of list `id` (done or failed) goes back to the queue
    /// for a fresh download, and queued ones lose their partial bytes. Jobs being worked on now are
    /// left alone: they are downloading afresh already. Returns how many jobs were queued again.
    ///
    /// Per job, the outputs, sidecar, outcome record and partial bytes go first and the job file
    /// moves last, so a worker that claims it at once never sees old outputs, and we never delete its
    /// new ones. Killed half-way, a reload leaves some jobs reloaded and the rest finished: running it
    /// again finishes.
    public func reload(list id: String) throws(SpoolError) -> Int {
        precondition(ListID.isValid(id), "invalid list id \(id)")
        let outputs = spool.outputsByIndex(ofList: id)
        var reloaded = 0
        for directory in [spool.finishedDirectory(id, .done), spool.finishedDirectory(id, .failed)] {
            for name in (try? FileSystem.listDirectory(directory)) ?? [] {
                guard let job = JobName(name), job.list == id else {
                    spool.setAside(directory + "/" + name, reason: "not a job of list \(id)")
                    continue
                }
                if try redo(directory + "/" + name, job: job, outputs: outputs[job.index] ?? [], fresh: true) {
                    reloaded += 1
                }
            }
        }
        dropPartials(ofList: id)
        return reloaded
    }

    /// Replaces the job file at `path` by one whose record is marked `fresh`, by rename (the outcome record
    /// goes with the old file; the job stays where it is). False when it was gone.
    func markFresh(_ path: String) -> Bool {
        guard FileSystem.exists(path) else { return false }
        guard var record = spool.jobRecord(atPath: path), !record.fresh else { return true }
        record.fresh = true
        let scratch = spool.scratch.path("fresh")
        do {
            try FileSystem.createFile(scratch, record.encoded())
            try FileSystem.rename(scratch, path)
        } catch {
            try? FileSystem.unlink(scratch)
            return FileSystem.exists(path)
        }
        return true
    }

    /// Deletes the partial downloads of `list`'s own jobs that nobody is writing (a writer holds an flock).
    /// Those of their URLs stay: a queued job resumes them only when the server says the bytes are the
    /// same (If-Range), and a reloaded one, marked fresh, starts over.
    private func dropPartials(ofList id: String) {
        for name in (try? FileSystem.listDirectory(spool.partial)) ?? [] where name.hasPrefix(id + ".") {
            FileSystem.unlinkUnlessLocked(spool.path(.partial, name))
        }
    }
}
