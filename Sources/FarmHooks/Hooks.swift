import FarmJSON
import FarmSpool
import FarmSystem
import SystemPackage

// Hooks (SPEC §15): what they add to the spool's protocol (FarmSpool's PROTOCOL.md, read first; hooks are
// its third leased queue, "One leased queue for jobs, pieces and hooks").
//
// A list added with `--on-done` or `--on-error` runs a program after each of its resources is done (and
// delivered) or failed for good, at least once whatever is killed. The hook is a job of its own, with the
// same moves as a download's, under hooks/:
//
//     hooks/queue/<job>            a hook to run: an empty mark the job's owner makes just BEFORE its
//                                  completion rename, so that no completion is ever without one (killed in
//                                  between, the job is redone, and its next completion makes it again)
//     hooks/active/<job>@<owner>   a hook running, claimed and leased as a job is; an expired one goes back
//                                  to queue/, and runs again: a hook runs at least once, not exactly once.
//                                  It holds `<pid> <start>`: the program's process, leader of a group of
//                                  its own, and its start time (/proc), written once it runs
//     hooks/ok/<list>/<job>        the hook ran and exited 0: its claim renamed here
//     hooks/failed/<list>/<job>    it ran and failed: its claim, holding its `HookResult`, renamed here;
//                                  `farm retry --hooks` renames it back to queue/
//
// Recording a result is the rename of the claim (after writing the result into it): a runner whose claim
// was reclaimed meanwhile records nothing, and the next owner's run is the one that counts. The other
// folder's result of the same job (from a run before a reload or a retry) is removed after, so a job has
// one result; a kill between the two leaves both, and the newer file is the one read. A mark whose job is
// not finished yet is the moment before a completion (or a completion lost with its claim, which the
// job's next owner makes again): runners leave it for later. Hooks never hold a job or a transfer slot:
// the worker runs them on threads of their own (FarmWorker's HookRunner).
//
// A runner killed leaves its hooks' programs running, in their own groups. Its host's supervisor, seeing it
// gone (as it hands back its jobs), ends each such group (the one the claim names, if /proc still shows that
// process started then: a pid used again is someone else's) and hands the hook back at once, so that the
// next run does not wait for the lease nor run beside the orphan. A hook is handed back whenever its
// runner's jobs are, by the same judgement of the same owner: a host known dead (`farm stop` finds none
// of its processes registered, SPEC §11) gives back its hooks with its jobs, their programs having died
// with it; otherwise another host's hooks are left to their lease, as its jobs are.
/// A hook claimed by one runner, under an owner name fresh for the claim (as a job's).
public struct HookClaim: Sendable {
    public let job: JobName
    public let owner: Owner

    var leased: LeasedQueue.Claim { LeasedQueue.Claim(name: job.raw, owner: owner) }
}

/// The hooks' moves, on the spool's part that names their files (`spool.hooks`).
extension HookFiles {
    func claimPath(_ claim: HookClaim) -> String { claims.path(of: claim.leased) }

    /// Marks `job`'s hook as due: called by its owner before the completion that makes it due.
    public func markDue(_ job: JobName) throws(SpoolError) {
        let path = queue + "/" + job.raw
        do {
            do { try FileSystem.createFile(path, []) } catch where error == .noSuchFileOrDirectory {
                try FileSystem.ensureDirectory(queue)
                try FileSystem.createFile(path, [])
            }
        } catch where error == .fileExists {
            // Due already (an earlier owner's mark, or a run not yet taken): one mark is enough.
        } catch {
            throw SpoolError(.io, "cannot mark the hook of \(job) as due", cause: error)
        }
    }

    /// The jobs whose hooks are due and not taken; foreign names are set aside.
    public func due() -> [JobName] {
        FileSystem.names(queue).compactMap { name in
            guard let job = JobName(name) else {
                spool.setAside(queue + "/" + name, reason: "not a hook's name")
                return nil
            }
            return job
        }
    }

    /// How many hooks are due or running: `farm wait` waits for none.
    public func outstanding() -> Int {
        FileSystem.names(queue).count + FileSystem.names(active).count
    }

    /// Claims the due hook of `job` by rename; nil when another runner took it first.
    public func claim(_ job: JobName) -> HookClaim? {
        do {
            return try claims.claim(job.raw).map { HookClaim(job: job, owner: $0.owner) }
        } catch {
            spool.log("cannot claim the hook of \(job): \(error)")
            return nil
        }
    }

    /// Renews the lease of `claim`; `.leaseLost` when it was reclaimed.
    public func renew(_ claim: HookClaim) throws(SpoolError) {
        do { try claims.renew(claim.leased) } catch where error == .noSuchFileOrDirectory {
            throw SpoolError(.leaseLost, "the hook of \(claim.job) was reclaimed from this worker")
        } catch {
            throw SpoolError(.io, "cannot renew the lease of the hook of \(claim.job)", cause: error)
        }
    }

    /// Notes in `claim` the process its program runs as (see the protocol above); written in place, as the
    /// result later is. Unwritten (a runner killed just before), the hook is handed back without it.
    public func noteProcess(_ claim: HookClaim, pid: Int32) { claims.noteProcess(claim.leased, pid: pid) }

    /// Hands back the running hooks of the owners that `isGone` says are gone (of any host: the caller
    /// judges), after ending the process group each claim of this host names (see the protocol above).
    /// Returns how many it handed back.
    @discardableResult
    package func release(ownedBy isGone: (Owner) -> Bool) -> Int {
        claims.release(ownedBy: isGone) { claim, group in
            spool.log("ended the hook of \(claim.name) (process group \(group)): its worker is gone")
        }.count
    }

    /// Puts `claim` back in the queue, not run (a worker stopping, a job not finished yet).
    public func handBack(_ claim: HookClaim) { claims.handBack(claim.leased) }

    /// Drops `claim`: its job is no longer a resource of any list, so there is nothing to run.
    public func drop(_ claim: HookClaim) {
        try? FileSystem.unlink(claimPath(claim))
    }

    /// Records how the hook of `claim` ended (see the protocol above); `.leaseLost` when it was reclaimed
    /// meanwhile (its next owner runs it again, and records that run).
    public func record(_ claim: HookClaim, _ result: HookResult) throws(SpoolError) {
        let path = claimPath(claim)
        let ok = result.succeeded
        let target = resultDirectory(ofList: claim.job.list, ok: ok) + "/" + claim.job.raw
        do {
            // Written into the claim itself, in place of its process (whose end made this result): empty for
            // one that exited 0.
            do {
                let fd = try FileDescriptor.open(path, .writeOnly, options: [.truncate])
                defer { fd.closeQuietly() }
                if !ok { try fd.write(contentsOf: result.encoded()) }
            }
            do { try FileSystem.rename(path, target) } catch where error == .noSuchFileOrDirectory
                && FileSystem.exists(path) {
                try FileSystem.ensureDirectory(folder + (ok ? "/ok" : "/failed"))
                try FileSystem.ensureDirectory(resultDirectory(ofList: claim.job.list, ok: ok))
                try FileSystem.rename(path, target)
            }
        } catch where error == .noSuchFileOrDirectory {
            throw SpoolError(.leaseLost, "the hook of \(claim.job) was reclaimed before it was recorded")
        } catch {
            throw SpoolError(.io, "cannot record the hook of \(claim.job)", cause: error)
        }
        try? FileSystem.unlink(resultDirectory(ofList: claim.job.list, ok: !ok) + "/" + claim.job.raw)
    }

    /// Sends back to the queue every running hook whose lease is older than `lease` seconds (its runner
    /// died); any process may, as many at once as like. Returns how many.
    @discardableResult
    public func reclaimExpired(lease: Double) -> Int {
        claims.reclaimExpired(lease: lease) { spool.setAside($0, reason: "not a claimed hook's name") }.count
    }

    /// How the hooks of list `id` ended, by job number (the last run of each).
    public func results(ofList id: String) -> [Int: HookResult] {
        var results: [Int: (result: HookResult, at: Double)] = [:]
        for ok in [true, false] {
            let directory = resultDirectory(ofList: id, ok: ok)
            for name in FileSystem.names(directory) {
                guard let job = JobName(name), job.list == id,
                      let st = try? FileSystem.lstat(directory + "/" + name) else { continue }
                let result = ok ? HookResult(exit: 0) : (try? FileSystem.readFile(directory + "/" + name, limit: 1 << 16))
                    .flatMap { JSON.decode(HookResult.self, from: $0) } ?? HookResult(error: "unknown")
                // Both kept (a kill between a record and the removal of the older one): the newer counts.
                if let known = results[job.index], known.at > st.changeTime { continue }
                results[job.index] = (result, st.changeTime)
            }
        }
        return results.mapValues(\.result)
    }

    /// Queues again the failed hooks of `jobs` (`farm retry --hooks`); returns how many.
    public func retry(_ jobs: [JobName]) throws(SpoolError) -> Int {
        var queued = 0
        for job in jobs {
            let source = resultDirectory(ofList: job.list, ok: false) + "/" + job.raw
            do {
                do { try FileSystem.rename(source, queue + "/" + job.raw) } catch where error == .noSuchFileOrDirectory
                    && FileSystem.exists(source) {
                    try FileSystem.ensureDirectory(queue)
                    try FileSystem.rename(source, queue + "/" + job.raw)
                }
                queued += 1
            } catch where error == .noSuchFileOrDirectory {
                continue
            } catch {
                throw SpoolError(.io, "cannot queue the hook of \(job) again", cause: error)
            }
        }
        return queued
    }
}
