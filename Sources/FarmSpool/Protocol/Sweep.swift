import FarmSystem
import SystemPackage

// The sweeps of what writers killed half-way leave: in tmp/ (its scratch names say whose each is), under
// files/<list>/, and the partial downloads of finished jobs.
extension ScratchFiles {
    /// Removes the temporaries of writers that were killed half-way, which nobody else would ever
    /// clean: under files/<list>/ (at any depth: an unpacked ZIP's entries are written in its folders),
    /// every name `AtomicFile` gave a temporary, which every writer of outputs uses; in tmp/, staged
    /// sidecars, summaries, control files and registry entries (a dead coordinator's stage is
    /// `recover()`'s business). Returns how many it removed.
    ///
    /// Only `farm stop` calls it, once every farm process is gone, so no live writer owns any of them;
    /// a command running meanwhile (`farm scale`) stages in tmp/ for microseconds, so only entries at
    /// least `tmpAge` seconds old are taken from there, unless their name says their writer is gone.
    /// Younger ones are waited for (`tmpAge` at most) and taken then: the stops of several hosts come
    /// within a second, and the last one must not leave what another host's process wrote as it ended
    /// (bin/cluster found a watcher's summary left so). With them go the partial downloads of jobs that
    /// are finished (the URL partials nobody can want are FarmDedup's `sweepURLPartials`, which `farm
    /// stop` calls too).
    @discardableResult
    public func sweepTemporaries(tmpAge: Double = 2) -> Int {
        var removed = sweepPartialsOfFinishedJobs()
        for list in FileSystem.names(spool.files) where ListID.isValid(list) {
            removed += sweepTemporaries(in: spool.outputDirectory(ofList: list))
        }
        var wait = 0.0
        for pass in 0..<2 {
            if pass == 1 {
                guard wait > 0 else { break }
                Clock.pause(min(wait, tmpAge), every: min(wait, tmpAge))  // a stop waits for it: a second or two
            }
            let now = Clock.wall()
            removed += sweepTmp { name, writer, path in
                guard let st = try? FileSystem.lstat(path) else { return false }
                if let writer, writer.isLocal { return writer.isGone }
                // Whose it is, the name says: one of another host is judged by when it was last written (not
                // its ctime: a scratch name of stored bytes shares their inode, whose ctime any new link to
                // them renews); a nameless one by its ctime.
                guard writer != nil || !st.isDirectory else { return false }
                let age = now - (writer != nil ? st.modificationTime : st.changeTime)
                if age < tmpAge { wait = max(wait, tmpAge - age) }
                return age >= tmpAge
            }
        }
        return removed
    }

    /// Removes what processes of this host that are gone left in tmp/ (`pid`'s alone, when given): the
    /// scratch files named after them (`path`), and the temporaries whose name says no writer
    /// once they are `Self.age` old (no writer keeps one for so long). The supervisor calls it as
    /// it sees a process die and every few seconds, so that a host's kills (SPEC §11: "nothing left
    /// behind") are swept while the farm runs, also those of a process killed before this supervisor
    /// started. Returns how many it removed.
    @discardableResult
    public func sweep(ofDead pid: Int32? = nil) -> Int {
        let now = Clock.wall()
        return sweepTmp { name, writer, path in
            if let writer { return writer.isLocal && (pid == nil || writer.pid == pid) && writer.isGone }
            guard pid == nil, AtomicFile.writer(ofTemporary: name) == nil, !name.hasPrefix(Self.stagedRegistrationPrefix),
                  let st = try? FileSystem.lstat(path) else { return false }
            return !st.isDirectory && now - st.changeTime >= Self.age
        }
    }

    /// Removes each entry of tmp/ but the stages of adds (`recover()`'s business) that `isGarbage` says is
    /// garbage, given its name, the writer the name says (`writer(ofName:)`) and its path; returns how many.
    private func sweepTmp(_ isGarbage: (_ name: String, _ writer: Writer?, _ path: String) -> Bool) -> Int {
        var removed = 0
        for name in FileSystem.names(folder) where !name.hasPrefix(Spool.stagePrefix) {
            let path = folder + "/" + name
            if isGarbage(name, Self.writer(ofName: name), path), (try? FileSystem.removeTree(path)) != nil {
                removed += 1
            }
        }
        return removed
    }

    /// Removes `partial/<job>` of the jobs in done/ or failed/ that nobody writes: a worker that transferred a job by itself (its URL's holder stuck) and lost the claim meanwhile
    /// (its host cut off, then killed) leaves one that the job's next run would take, but a finished job has
    /// none. fsck reports the same (`partial`).
    private func sweepPartialsOfFinishedJobs() -> Int {
        var removed = 0
        for name in FileSystem.names(spool.partial) {
            guard let job = JobName(name), job.raw == name else { continue }
            guard FileSystem.exists(spool.finishedPath(job, .done))
                    || FileSystem.exists(spool.finishedPath(job, .failed))
            else { continue }
            if FileSystem.unlinkUnlessLocked(spool.partial + "/" + name) { removed += 1 }
        }
        return removed
    }

    private func sweepTemporaries(in directory: String) -> Int {
        var removed = 0
        for entry in (try? FileSystem.listEntries(directory)) ?? [] {
            let path = directory + "/" + entry.name
            if entry.isDirectory {
                removed += sweepTemporaries(in: path)
            } else if AtomicFile.isTemporary(entry.name), (try? FileSystem.unlink(path)) != nil {
                removed += 1
            }
        }
        return removed
    }
}
