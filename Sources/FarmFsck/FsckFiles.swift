import FarmDedup
import FarmHosts
import FarmPieces
import FarmRegistry
import FarmSpool
import FarmSystem
import SystemPackage

// The leftovers of fsck (see SpoolCheck.swift): partial downloads nobody will resume, progress of jobs that
// do not exist, temporaries of writers that are gone, registry entries of dead processes, holds that
// are no host's.
extension FsckRun {
    func checkLeftovers(_ registry: (alive: [FarmProcess], dead: [String], foreign: [String])) throws(SpoolError) {
        try checkPartials()
        try checkSidecars()
        try checkScratch()
        try checkHolds()
        checkPieces()
        try checkBlobs()
        for name in registry.foreign { foreign(spool.path(.procs, name), "not a process entry") }
        for name in registry.dead {
            let path = spool.path(.procs, name)
            found(.deadRegistration, path, "the registry entry of a process that is gone") {
                [spool] () throws(SpoolError) in
                guard spool.registry.isHeld(path) == false else { return .skipped("it is held") }
                try? FileSystem.unlink(path)
                return .made
            }
        }
    }

    /// partial/: the bytes of jobs being downloaded or queued to resume; those of a finished job, or of
    /// no job, that nobody holds are leftovers.
    private func checkPartials() throws(SpoolError) {
        for name in try names(spool.partial) {
            let path = spool.path(.partial, name)
            if name.hasPrefix(Dedup.urlPartialPrefix), Dedup.isDigest(name.dropFirst(Dedup.urlPartialPrefix.count)) {
                checkURLPartial(path, key: String(name.dropFirst(Dedup.urlPartialPrefix.count)))
                continue
            }
            guard let job = JobName(name) else {
                foreign(path, "not a job's partial download")
                continue
            }
            let whose: String
            if let list = lists[job.list] {
                guard let total = list.total else { continue }
                if job.index >= total {
                    whose = "of resource \(job.index), past the end of its list (\(total) resource(s))"
                } else if list.removed?.contains(job.index) == true && list.seen[job.index] == 0 {
                    whose = "of job \(job), whose resource was removed from its list"
                } else if list.seen[job.index] == FsckList.done {
                    whose = "of job \(job), which is done"
                } else if list.seen[job.index] == FsckList.failed {
                    whose = "of job \(job), which failed"
                } else {
                    continue  // queued (the next owner resumes from it), active, lost or doubled
                }
            } else {
                whose = "of a job of list \(job.list), which the spool does not have"
            }
            guard Self.isUnlocked(path) else { continue }  // a stale owner still writes it
            found(.partial, path, job: job, "a partial download \(whose), which nobody writes") {
                [self] () throws(SpoolError) in
                if let list = lists[job.list], job.index < list.seen.count, list.seen[job.index] != 0,
                   !FileSystem.exists(spool.finishedPath(job, .done)),
                   !FileSystem.exists(spool.finishedPath(job, .failed)) {
                    return .skipped("the job is no longer finished")
                }
                guard let fd = try? FileDescriptor.open(path, .readOnly) else { return .skipped("it is gone") }
                defer { fd.closeQuietly() }
                guard (try? fd.tryLock()) == true else { return .skipped("a writer holds it") }
                try? FileSystem.unlink(path)
                return .made
            }
        }
    }

    /// A URL's partial download (URLPartial) is a leftover when nobody holds it, it is older than a
    /// moment (a waiter may have just made it), and either the URL's result is stored (its bytes serve
    /// nobody) or no job that is queued or claimed has the URL.
    private func checkURLPartial(_ path: String, key: String) {
        guard let st = try? FileSystem.lstat(path), now - st.changeTime >= Self.stageAge, Self.isUnlocked(path) else {
            return
        }
        let whose: String
        if let record = Dedup(spool).urlRecord(key: key), Dedup(spool).holdsBytes(of: record) {
            whose = "of \(record.url), whose result is stored"
        } else if let wanted = unfinishedURLKeys, !wanted.contains(key) {
            whose = "of a URL that no unfinished job has"
        } else {
            return
        }
        found(.partial, path, "a partial download \(whose), which nobody writes") { () throws(SpoolError) in
            guard let fd = try? FileDescriptor.open(path, .readOnly) else { return .skipped("it is gone") }
            defer { fd.closeQuietly() }
            guard (try? fd.tryLock()) == true else { return .skipped("a writer holds it") }
            try? FileSystem.unlink(path)
            return .made
        }
    }

    /// Whether nobody holds an flock on the file at `path` (its writer holds one while it writes).
    static func isUnlocked(_ path: String) -> Bool {
        guard let fd = try? FileDescriptor.open(path, .readOnly) else { return false }
        defer { fd.closeQuietly() }
        return (try? fd.tryLock(shared: true)) == true
    }

    /// progress/: the sidecars of jobs (of finished ones too: a crash may leave one, and where the file
    /// system has no extended attributes it is the outcome record); any other name is foreign.
    private func checkSidecars() throws(SpoolError) {
        for name in try names(spool.progress) {
            let path = spool.path(.progress, name)
            guard let job = SidecarFiles.job(ofName: name) else {
                foreign(path, "not a job's progress")
                continue
            }
            if let list = lists[job.list] {
                if let total = list.total, job.index >= total {
                    foreign(path, job: job, "the progress of resource \(job.index), past the end of its list")
                }
            } else {
                unknown[job.list, default: []].append(
                    (path, job, "the progress of a job of list \(job.list), which the spool does not have"))
            }
        }
    }

    /// tmp/: stages of adds (their coordinator holds a lock on them), and files commands and writers
    /// stage for a moment; those whose writer is gone are garbage.
    private func checkScratch() throws(SpoolError) {
        for entry in try entries(spool.tmp) {
            let path = spool.path(.tmp, entry.name)
            if entry.name.hasPrefix(Spool.stagePrefix) {
                // A stage (or its lock file) whose coordinator holds no lock is dead once it has not
                // changed for a moment (a coordinator makes its lock file, then locks it).
                guard !spool.isStageLive(entry.name), let st = try? FileSystem.lstat(path),
                      now - st.changeTime >= Self.stageAge else { continue }
                let what = entry.isDirectory ? "the stage of an add that died before its commit"
                    : "the lock file of an add that died"
                found(.temporary, path, what) { [spool] () throws(SpoolError) in
                    guard !spool.isStageLive(entry.name) else { return .skipped("its coordinator holds it") }
                    // A committed batch's lists are published first: only a batch with its lock file may
                    // hold pending lists (Spool.batchesBeingAdded).
                    if !entry.isDirectory { _ = try spool.publishLists(ofStageLock: entry.name) }
                    try? FileSystem.removeTree(path)
                    return .made
                }
            } else if let writer = ScratchFiles.writer(ofName: entry.name) {
                checkTemporary(path, writer: writer.pid, isLocal: writer.isLocal)
            } else if let writer = Self.writer(ofScratch: entry.name) {
                checkTemporary(path, writer: writer)
            } else if let st = try? FileSystem.lstat(path), now - st.changeTime >= ScratchFiles.age {
                found(.temporary, path, "a temporary left \(Int(now - st.changeTime)) s ago, longer than any writer "
                      + "keeps one") { () throws(SpoolError) in
                    try? FileSystem.removeTree(path)
                    return .made
                }
            }
        }
    }

    /// The pid of the process that staged the tmp/ entry `name`, when its name carries one but not its
    /// host: a temporary beside its file, a registry entry (of this host: another host's pid means
    /// nothing here).
    private static func writer(ofScratch name: String) -> Int32? {
        if let pid = AtomicFile.writer(ofTemporary: name) { return pid }
        if name.hasPrefix(ScratchFiles.stagedRegistrationPrefix) {
            let registrant = Registry.registrant(String(name.dropFirst(ScratchFiles.stagedRegistrationPrefix.count)))
            return registrant?.isLocal == true ? registrant?.pid : nil
        }
        return nil
    }

    /// A temporary at `path` written by `writer`, of this host when `isLocal` says so, of another when it
    /// says not, and of either when it is nil: garbage once that process is gone. A pid of another host's
    /// means nothing here: its process is judged gone when no other host runs a farm process, or once the file
    /// is `ScratchFiles.age` old; so is a pid whose host the name does not say, while other hosts run processes.
    func checkTemporary(_ path: String, writer: Int32, isLocal: Bool? = nil) {
        if isLocal != false {
            guard !Processes.mayExist(writer) else { return }
        }
        if isLocal != true && otherHostsRun {
            guard let st = try? FileSystem.lstat(path), now - st.changeTime >= ScratchFiles.age else { return }
        }
        let whose = isLocal == false ? "of pid \(writer) of another host, gone by now" : "of pid \(writer), which is gone"
        found(.temporary, path, "a temporary \(whose)") { () throws(SpoolError) in
            try? FileSystem.removeTree(path)
            return .made
        }
    }

    /// pieces/: the board of each resource in pieces (SPEC §14), beside its partial download; one whose
    /// partial is gone (dropped, or removed above) serves nobody.
    private func checkPieces() {
        for (board, partial) in spool.pieceBoards() {
            if board.plan() == nil {
                foreign(board.path, "not the pieces of a download (no plan)")
            } else if !FileSystem.exists(partial) {
                found(.partial, board.path, "the pieces of a download whose partial is gone") { () throws(SpoolError) in
                    board.remove()
                    return .made
                }
            }
        }
    }

    /// holds/: one file per held host, holding a time.
    private func checkHolds() throws(SpoolError) {
        for name in try names(spool.holdsDirectory) {
            let path = spool.path(.holdsDirectory, name)
            if let writer = AtomicFile.writer(ofTemporary: name) {
                checkTemporary(path, writer: writer)
            } else if HostKey(raw: name) == nil || (try? FileSystem.readFile(path, limit: 64))
                .flatMap({ Double(String(decoding: $0, as: UTF8.self)) }) == nil {
                foreign(path, "not a host's hold")
            }
        }
    }

    /// Reports what is named after a list the spool did not have when it was read, unless it has it now.
    func settleUnknown() {
        for (id, items) in unknown where !hasList(id) {
            for item in items {
                let claimed = spool.contains(item.path, in: .active)
                found(.foreign, item.path, job: item.job, item.reason,
                      repair: setAside(item.path, claimed: claimed, reason: item.reason))
            }
        }
    }
}
