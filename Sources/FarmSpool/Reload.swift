import FarmJSON
import FarmSystem
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
            for name in (try? FileSystem.listDirectory(directory)) ?? [] {
                guard let job = JobName(name), job.list == id else {
                    setAside(directory + "/" + name, reason: "not a job of list \(id)")
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

    /// The names in files/<list>/ by the index they start with (`3.jpg`, `3.thumb.png`, `3.unzipped`).
    func outputsByIndex(ofList id: String) -> [Int: [String]] {
        var outputs: [Int: [String]] = [:]
        for name in FileSystem.names(outputDirectory(ofList: id)) {
            guard let index = name.split(separator: ".", maxSplits: 1).first.flatMap({ Int($0) }) else { continue }
            outputs[index, default: []].append(name)
        }
        return outputs
    }

    /// Sends the finished job file at `path` back to the queue after deleting `outputs` (names in
    /// files/<list>/), its sidecar, partial bytes and, unless `keepOutcome`, its outcome record; `fresh`
    /// marks it to be downloaded again even when its URL's result is stored (see "Once").
    /// False when it was gone already.
    func redo(_ path: String, job: JobName, outputs: [String], keepOutcome: Bool = false,
              fresh: Bool = false) throws(SpoolError) -> Bool {
        let directory = outputDirectory(ofList: job.list)
        let url = jobURL(atPath: path)
        for output in outputs {
            do { try removeOutput(directory + "/" + output, url: url) } catch {
                throw SpoolError(.io, "cannot delete \(directory)/\(output)", cause: error)
            }
        }
        try? FileSystem.unlink(sidecarPath(job))
        if !keepOutcome { forgetOutcome(atPath: path) }
        dropPartials(of: job, url: url)
        if fresh && !markFresh(path) { return false }
        return try returnToQueue(path, job: job)
    }

    /// Replaces the job file at `path` by one whose record is marked `fresh`, by rename (the outcome record
    /// goes with the old file; the job stays where it is). False when it was gone.
    private func markFresh(_ path: String) -> Bool {
        guard let bytes = try? FileSystem.readFile(path, limit: 1 << 16) else { return false }
        guard var record = JSON.decode(JobRecord.self, from: bytes), !record.fresh else { return true }
        record.fresh = true
        let scratch = scratchPath("fresh")
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
        for name in (try? FileSystem.listDirectory(partial)) ?? [] where name.hasPrefix(id + ".") {
            guard let fd = try? FileDescriptor.open(partial + "/" + name, .readOnly) else { continue }
            if (try? fd.tryLock()) == true { try? FileSystem.unlink(partial + "/" + name) }
            fd.closeQuietly()
        }
    }

    /// `farm reset`: deletes every list, job, output and setting; the spool is as on first launch.
    /// The caller stops every process first. Killed half-way, running it again finishes.
    public func erase() throws(SpoolError) {
        for name in (try? FileSystem.listDirectory(root)) ?? [] where root + "/" + name != marker {
            let path = root + "/" + name
            do {
                if name == "control" {
                    // add.lock stays: an `add` waiting on it must keep the lock it is waiting for.
                    for entry in try FileSystem.listDirectory(path) where path + "/" + entry != addLock {
                        try FileSystem.removeTree(path + "/" + entry)
                    }
                } else {
                    try FileSystem.removeTree(path)
                }
            } catch {
                throw SpoolError(.io, "cannot delete \(path)", cause: error)
            }
        }
        try makeSubdirectories()
    }
}
