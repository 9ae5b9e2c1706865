import FarmSystem
import SystemPackage

// Every move of a job between states, one function each: nothing else moves a job file between states.
// The table of moves, and why each is one rename: PROTOCOL.md, "States and moves".
extension Spool {
    /// Claims the queued job file at `source` for `owner` (PROTOCOL.md, "Claim"), whose name says when. The
    /// time of the claim, or nil when another process took the job first.
    package func moveToActive(_ source: String, job: JobName, owner: Owner) throws(SpoolError) -> Double? {
        do {
            guard try jobClaims.claim(job.raw, from: source, owner: owner) != nil else { return nil }
        } catch {
            throw SpoolError(.io, "cannot claim \(job)", cause: error)
        }
        Failpoint.hit("claim.renamed")
        return owner.claimedAt
    }

    /// Claims the whole queue shard at `shard` as the pack `pack` for `owner`, one rename of its folder
    /// (PROTOCOL.md, "Packs"); false when another process took it first.
    package func moveToActive(shard: String, pack: String, owner: Owner) throws(SpoolError) -> Bool {
        do { try FileSystem.rename(shard, packPath(pack, owner)) } catch where error == .noSuchFileOrDirectory {
            return false
        } catch {
            throw SpoolError(.io, "cannot claim \(shard)", cause: error)
        }
        Failpoint.hit("claim.renamed")
        return true
    }

    /// Renames active/<activeName> to the returned batch. False when it was gone already.
    package func returnToQueue(activeName: String, job: JobName) throws(SpoolError) -> Bool {
        try returnToQueue(active + "/" + activeName, job: job)
    }

    /// Renames the job file at `source` to the returned batch. False when it was gone already.
    package func returnToQueue(_ source: String, job: JobName) throws(SpoolError) -> Bool {
        try moveToQueue(source, job: job, shard: returnedShard)
    }

    /// Renames the job file at `source` into the queue shard `shard` (of queue/0 or of a host's
    /// batch), making the shard and its batch as needed. False when the file was gone already.
    package func moveToQueue(_ source: String, job: JobName, shard: String) throws(SpoolError) -> Bool {
        do {
            // Never link here: the job would be claimable while its old owner's name still lets it
            // renew and complete (PROTOCOL.md, "Without RENAME_NOREPLACE").
            return try renameIntoQueue(source, shard + "/" + job.raw,
                                       making: [String(shard[..<shard.lastIndex(of: "/")!]), shard])
        } catch where error == .fileExists {
            setAside(source, reason: "job \(job) is queued twice")
            return false
        } catch where error == .noSuchFileOrDirectory {
            throw SpoolError(.io, "cannot return \(job) to the queue: \(shard) keeps disappearing")
        } catch {
            throw SpoolError(.io, "cannot return \(job) to the queue", cause: error)
        }
    }

    /// Renames the folder of a claimed pack at `source` back to the queue whole, as the shard `queue/0/<pack>`,
    /// whose jobs are then claimed one by one (PROTOCOL.md, "Packs"); an empty one is removed instead. False
    /// when it was gone already.
    package func moveToQueue(pack source: String, _ pack: String) throws(SpoolError) -> Bool {
        if (try? FileSystem.rmdir(source)) != nil { return true }
        let returned = queue + "/" + Self.returnedBatch
        do { return try renameIntoQueue(source, returned + "/" + pack, making: [returned]) } catch {
            throw SpoolError(.io, "cannot return the pack \(pack) to the queue", cause: error)
        }
    }

    /// Renames `source` to `target` in the queue, making `folders` (outermost first) as needed: a claimer may
    /// rmdir a shard between our mkdir and rename, so a few tries. False when `source` was gone already.
    private func renameIntoQueue(_ source: String, _ target: String, making folders: [String]) throws(Errno) -> Bool {
        for _ in 0..<8 {
            do {
                try FileSystem.renameNoReplace(source, target, fallback: .rename)
                Failpoint.hit("return.renamed")
                return true
            } catch where error == .noSuchFileOrDirectory {
                guard FileSystem.exists(source) else { return false }
                for folder in folders { try? FileSystem.ensureDirectory(folder) }
            }
        }
        throw .noSuchFileOrDirectory
    }

    /// Moves the claim `claim` to done/ or failed/ (PROTOCOL.md, "Complete"). Throws `.leaseLost` when the job is
    /// no longer this owner's, and `.corrupt` (the claim set aside) when it was finished already.
    func moveToFinished(_ claim: Claim, _ outcome: Outcome) throws(SpoolError) {
        let source = claimPath(claim)
        let directory = finishedDirectory(claim.job.list, outcome)
        let target = finishedPath(claim.job, outcome)
        for _ in 0..<2 {
            do {
                if try FileSystem.renameNoReplace(source, target, fallback: .link) == .linked {
                    Failpoint.hit("complete.linked")
                    dropActiveName(source, completed: target, claim.job)
                }
                Failpoint.hit("complete.renamed")
                return
            } catch where error == .noSuchFileOrDirectory {
                guard FileSystem.exists(source) else {
                    throw SpoolError(.leaseLost, "job \(claim.job) was reclaimed before it completed")
                }
                try? FileSystem.ensureDirectory(directory)
            } catch where error == .fileExists {
                if FileSystem.refusesNoReplace, dropIfCompleted(source, claim.job) {
                    throw SpoolError(.leaseLost, "job \(claim.job) was completed by an earlier owner")
                }
                setAside(source, reason: "job \(claim.job) completed twice")
                throw SpoolError(.corrupt, "job \(claim.job) was already complete")
            } catch {
                throw SpoolError(.io, "cannot complete \(claim.job)", cause: error)
            }
        }
        throw SpoolError(.io, "cannot create \(directory)")
    }

    /// The second step of a completion by link: the active name goes. A reclaim that moved it to the
    /// queue first left the job complete all the same (PROTOCOL.md), and the queued name is
    /// removed too; one that cannot be removed now is dropped by whoever claims it.
    private func dropActiveName(_ source: String, completed target: String, _ job: JobName) {
        do { try FileSystem.unlink(source) } catch where error == .noSuchFileOrDirectory {
            dropSecondName(returnedShard + "/" + job.raw, of: target)
        } catch {
            log("job \(job) is complete, but its claim \(source.dropFirst(root.count + 1)) cannot be removed "
                + "(its next reclaim will be dropped): \(error)")
        }
    }

    /// Moves a damaged or foreign file out of the way, into corrupt/, and says so in the log.
    /// Never deletes: a human may want to look at it. Returns false when the file was already gone
    /// (another process set it aside first, or it was a claim race).
    @discardableResult
    public func setAside(_ path: String, reason: String) -> Bool {
        let base = path.split(separator: "/").last.map(String.init) ?? "file"
        let target = corrupt + "/" + base + "." + Nonce.hex16(UInt64.random(in: .min ... .max)).prefix(8)
        do {
            try FileSystem.renameNoReplace(path, target, fallback: .rename)  // a fresh name
        } catch where error == .noSuchFileOrDirectory {
            return false
        } catch {
            log("cannot set aside \(path) (\(reason)): \(error)")
            return false
        }
        log("set aside \(path.dropFirst(root.count + 1)) as corrupt/\(target.split(separator: "/").last!): \(reason)")
        return true
    }

    /// Takes the job file at `path` out of every state, into tmp/ under a name of its own, for an edit that
    /// removes the job. Returns that name (the caller reads what it needs and deletes it); nil when the file
    /// moved on meanwhile (look for it again).
    package func moveToRemoved(_ path: String, job: JobName) throws(SpoolError) -> String? {
        let trash = scratch.path("removed-" + job.raw)
        do { try FileSystem.rename(path, trash) } catch where error == .noSuchFileOrDirectory {
            return nil
        } catch {
            throw SpoolError(.io, "cannot remove \(job)", cause: error)
        }
        return trash
    }
}
