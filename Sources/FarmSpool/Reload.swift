import Glibc
import SystemPackage

extension Spool {
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
        let outputs = outputsByIndex(ofList: id)
        var reloaded = 0
        for directory in [finishedDirectory(id, .done), finishedDirectory(id, .failed)] {
            for name in (try? Sys.listDirectory(directory)) ?? [] {
                guard let job = JobName(name), job.list == id else {
                    setAside(directory + "/" + name, reason: "not a job of list \(id)")
                    continue
                }
                if try redo(directory + "/" + name, job: job, outputs: outputs[job.index] ?? []) { reloaded += 1 }
            }
        }
        dropPartials(ofList: id)
        return reloaded
    }

    /// The names in files/<list>/ by the index they start with (`3.jpg`, `3.thumb.png`, `3.unzipped`).
    func outputsByIndex(ofList id: String) -> [Int: [String]] {
        var outputs: [Int: [String]] = [:]
        for name in (try? Sys.listDirectory(files + "/" + id)) ?? [] {
            guard let index = name.split(separator: ".", maxSplits: 1).first.flatMap({ Int($0) }) else { continue }
            outputs[index, default: []].append(name)
        }
        return outputs
    }

    /// Sends the finished job file at `path` back to the queue after deleting `outputs` (names in
    /// files/<list>/), its sidecar, outcome record and partial bytes. False when it was gone already.
    func redo(_ path: String, job: JobName, outputs: [String]) throws(SpoolError) -> Bool {
        let directory = files + "/" + job.list
        for output in outputs {
            do { try Sys.removeTree(directory + "/" + output) } catch {
                throw SpoolError(.io, "cannot delete \(directory)/\(output)", cause: error)
            }
        }
        try? Sys.unlink(sidecarPath(job))
        forgetOutcome(atPath: path)
        try? Sys.unlink(partial + "/" + job.raw)
        return try returnToQueue(path, job: job)
    }

    /// Deletes the partial downloads of `list` that nobody is writing (a writer holds an flock).
    private func dropPartials(ofList id: String) {
        for name in (try? Sys.listDirectory(partial)) ?? [] where name.hasPrefix(id + ".") {
            guard let fd = try? Sys.open(partial + "/" + name, O_RDONLY | O_CLOEXEC) else { continue }
            if (try? Sys.tryLock(fd)) == true { try? Sys.unlink(partial + "/" + name) }
            close(fd)
        }
    }

    /// `farm reset`: deletes every list, job, output and setting; the spool is as on first launch.
    /// The caller stops every process first. Killed half-way, running it again finishes.
    public func erase() throws(SpoolError) {
        for name in (try? Sys.listDirectory(root)) ?? [] where root + "/" + name != marker {
            let path = root + "/" + name
            do {
                if name == "control" {
                    // add.lock stays: an `add` waiting on it must keep the lock it is waiting for.
                    for entry in try Sys.listDirectory(path) where entry != "add.lock" {
                        try Sys.removeTree(path + "/" + entry)
                    }
                } else {
                    try Sys.removeTree(path)
                }
            } catch {
                throw SpoolError(.io, "cannot delete \(path)", cause: error)
            }
        }
        try makeSubdirectories()
    }
}
