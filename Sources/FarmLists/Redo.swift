import FarmDedup
import FarmJSON
import FarmPieces
import FarmRegistry
import FarmSpool
import FarmSystem
import SystemPackage

// A finished job sent back to the queue: by `farm reload` and `farm retry`, and after a reboot for a done
// job whose outputs the disk did not keep; and the rest of what a power cut leaves, claims of the boot
// before and partial bytes the disk did not keep (the other half of Durability.swift in FarmSpool).
extension Lists {
    /// After a reboot (the mark names another boot, or there is none): every job that reached done/
    /// since the mark whose outputs did not survive goes back to the queue. Returns those jobs; none
    /// and no work when the mark is this boot's. Another process checking at the same time (a second
    /// watcher, briefly) leaves it to that one.
    public func recheckAfterReboot() throws(SpoolError) -> [JobName] {
        let mark = spool.durability.mark()
        if mark?.boot == Durability.boot { return [] }
        let lock: FileDescriptor
        do {
            lock = try FileDescriptor.open(spool.control.path(.syncedLock), .readWrite, options: .create,
                                           permissions: 0o600)
        } catch {
            throw SpoolError(.io, "cannot open \(spool.control.path(.syncedLock))", cause: error)
        }
        defer { lock.closeQuietly() }
        guard (try? lock.tryLock()) == true, spool.durability.mark() == mark else { return [] }

        var redone: [JobName] = []
        for list in spool.durability.finishedLists(since: mark?.time ?? 0) {
            let directory = spool.finishedDirectory(list, .done)
            var outputs: [Int: [String]]?
            for name in (try? FileSystem.listDirectory(directory)) ?? [] {
                guard let job = JobName(name), job.list == list,
                      let st = try? FileSystem.lstat(directory + "/" + name),
                      st.changeTime >= (mark?.time ?? 0) - Durability.clockSlack,
                      let sidecar = spool.sidecars.last(job, finished: [.done]),
                      !Durability.survived(sidecar)
                else { continue }
                if outputs == nil { outputs = spool.outputsByIndex(ofList: list) }
                if try redo(directory + "/" + name, job: job, outputs: outputs?[job.index] ?? [], lost: true) {
                    redone.append(job)
                }
            }
        }
        // Every job finished before this boot is now on disk or queued again.
        try spool.durability.markBootChecked()
        return redone
    }

    /// Hands back every claim of this host made before this boot whose owner is not a live process
    /// (the power went with it; other hosts' claims are theirs or their leases' to judge), after deleting
    /// what its owner may have stored of the job: its outputs, their blobs and its URL's record, found as
    /// for a redo after a reboot (their bytes are what the disk kept, which may be fewer than were
    /// written). The supervisor's recovery, before it starts any worker: handed back by its tick instead,
    /// the job would be queued with its outputs still there, and its blob's record naming bytes the disk
    /// lost. The job's partial bytes stay: a transfer resumes from what the disk kept of them.
    func releaseClaimsOfAnEarlierBoot() throws(SpoolError) -> Int {
        let claims = spool.activeJobs().filter(\.owner.claimedBeforeThisBoot)
        guard !claims.isEmpty else { return 0 }
        // A claimant registers before its first claim: one that lives holds its claims, whatever its clock said.
        let live = Set(spool.registry.processes().filter(\.isLocal).map(\.pid))
        var outputs: [String: [Int: [String]]] = [:]
        var released = 0
        for claim in claims where !live.contains(claim.owner.pid) {
            let list = claim.job.list
            if outputs[list] == nil { outputs[list] = spool.outputsByIndex(ofList: list) }
            let directory = spool.outputDirectory(ofList: list)
            let url = spool.jobURL(atPath: spool.path(.active, claim.name))
            for output in outputs[list]?[claim.job.index] ?? [] {
                do { try Dedup(spool).removeOutput(directory + "/" + output, url: url, lost: true) } catch {
                    throw SpoolError(.io, "cannot delete \(directory)/\(output)", cause: error)
                }
            }
            // A pack's members go back one by one; its folder, empty then, goes below.
            if try spool.returnToQueue(activeName: claim.name, job: claim.job) {
                released += 1
            }
        }
        for claim in claims where claim.pack != nil && !live.contains(claim.owner.pid) {
            spool.dropEmptyPack(claim)
        }
        return released
    }

    /// After a reboot (the sync mark names another boot): every partial download cut back to the bytes
    /// the disk kept of it, so that no transfer resumes past a hole and leaves zeros in a done resource.
    /// A partial's size may have reached the disk before bytes written ahead of it (FileSystem.dataEnd);
    /// a resource in pieces has its pieces' records cut back instead (PieceBoard.cutBackToTheDisk), its
    /// partial's holes being the pieces nobody fetched yet. A file that is also a name of stored bytes is
    /// never written (FarmDedup's protocol): its taker starts over. The URL partials nobody can want go
    /// first (`Dedup.sweepURLPartials`). Returns how many were cut back (or dropped).
    func cutPartialsBackToTheDisk() -> Int {
        guard spool.durability.mark()?.boot != Durability.boot else { return 0 }
        var cut = 0
        var inPieces: Set<String> = []
        for (board, partial) in spool.pieceBoards() {
            // A board whose plan the disk did not keep (published by a version that did not sync it) cannot
            // say where its pieces' bytes lie: the board and its partial go, and the resource starts over.
            guard board.plan() != nil else {
                board.remove()
                if FileSystem.unlinkUnlessLocked(partial) { cut += 1 }
                continue
            }
            inPieces.insert(partial)
            cut += board.cutBackToTheDisk(partial: partial)
        }
        // A download linked into blobs/ whose bytes the disk kept only in part: its blob and record go, and
        // its partial is cut back below with the others.
        Dedup(spool).collectBlobsOfLostDownloads()
        // A removal's partial whose holder the cut took before it saw the removal: nobody else deletes it.
        Dedup(spool).sweepURLPartials()
        // A download linked into blobs/ whose bytes the disk did not keep: its empty partial went just now.
        Dedup(spool).collectUnusedBlobs()
        for name in FileSystem.names(spool.partial) {
            let path = spool.path(.partial, name)
            guard !inPieces.contains(path), let st = try? FileSystem.lstat(path), st.isRegularFile, st.linkCount == 1,
                  let end = try? FileSystem.dataEnd(path), end < Int(st.size),
                  let fd = try? FileDescriptor.open(path, .writeOnly) else { continue }
            defer { fd.closeQuietly() }
            if (try? fd.truncate(to: end)) != nil { cut += 1 }
        }
        return cut
    }

    /// Sends the finished job file at `path` back to the queue after deleting `outputs` (names in
    /// files/<list>/), its sidecar, partial bytes and, unless `keepOutcome`, its outcome record; `fresh`
    /// marks it to be downloaded again even when its URL's result is stored (see FarmDedup's protocol);
    /// `lost`: the disk may have kept fewer of the outputs' bytes than they were given (after a reboot,
    /// fsck's damaged outputs), so their blobs are found by inode. False when it was gone already.
    package func redo(_ path: String, job: JobName, outputs: [String], keepOutcome: Bool = false,
              fresh: Bool = false, lost: Bool = false) throws(SpoolError) -> Bool {
        let directory = spool.outputDirectory(ofList: job.list)
        let url = spool.jobURL(atPath: path)
        for output in outputs {
            do { try Dedup(spool).removeOutput(directory + "/" + output, url: url, lost: lost) } catch {
                throw SpoolError(.io, "cannot delete \(directory)/\(output)", cause: error)
            }
        }
        try? FileSystem.unlink(spool.sidecars.path(job))
        if !keepOutcome { spool.sidecars.forgetOutcome(atPath: path) }
        Dedup(spool).dropPartials(of: job, url: url)
        if fresh && !markFresh(path) { return false }
        return try spool.returnToQueue(path, job: job)
    }
}
