import FarmSystem
import SystemPackage

/// A claimed job as seen in active/, by anyone.
public struct ActiveJob: Sendable {
    public let job: JobName
    public let owner: Owner
    /// Seconds since the lease was last renewed.
    public let age: Double
}

extension Spool {
    /// Jobs' leased queue: claimed from their batches' shards (Claimer) into active/, handed back to queue/0.
    var jobClaims: LeasedQueue {
        LeasedQueue(waiting: returnedShard, active: active) { [self] source, name in
            JobName(name).map { handBack(source, job: $0) } ?? false
        }
    }

    /// Every leased queue of the spool: hooks, each board's pieces, jobs (in the order a release takes them:
    /// a job handed back finds its pieces free).
    func leasedQueues() -> [LeasedQueue] {
        [hookClaims] + FileSystem.names(pieces).map { pieceQueue(ofBoard: pieces + "/" + $0) } + [jobClaims]
    }

    /// Boards of the resources in pieces, `pieces/<partial>/` (FarmPieces).
    public var pieces: String { root + "/pieces" }

    /// The leased queue of the board at `board`: pieces waiting in q/, held in a/ (FarmPieces).
    public func pieceQueue(ofBoard board: String) -> LeasedQueue {
        LeasedQueue(waiting: board + "/q", active: board + "/a")
    }

    /// Renews the lease on `claim`; `.leaseLost` when it was reclaimed: the caller must stop.
    public func renew(_ claim: Claim) throws(SpoolError) {
        do {
            try jobClaims.renew(LeasedQueue.Claim(name: claim.job.raw, owner: claim.owner))
        } catch where error == .noSuchFileOrDirectory {
            throw SpoolError(.leaseLost, "job \(claim.job) was reclaimed from this worker")
        } catch {
            throw SpoolError(.io, "cannot renew the lease of \(claim.job)", cause: error)
        }
    }

    /// Whether `claim` is still its owner's: one stat of its file in active/. For an owner that could not
    /// renew for a while (its host cut off from the spool): a reclaim may have taken the job meanwhile.
    public func holds(_ claim: Claim) -> Bool {
        FileSystem.exists(activePath(claim.job, claim.owner))
    }

    /// Hands `claim` back to the queue (stop, scale down); `.leaseLost` when it was no longer ours.
    public func release(_ claim: Claim) throws(SpoolError) {
        guard try returnToQueue(activeName: claim.job.raw + "@" + claim.owner.raw, job: claim.job) else {
            throw SpoolError(.leaseLost, "job \(claim.job) was reclaimed from this worker")
        }
    }

    /// Whether `job` is claimed now, by anyone: a fresh look at active/.
    public func isClaimed(_ job: JobName) -> Bool {
        FileSystem.names(active).contains { ActiveName($0)?.job == job }
    }

    /// Whether any job is claimed now: some transfer may be writing its partial.
    var hasClaims: Bool {
        FileSystem.names(active).contains { ActiveName($0) != nil }
    }

    /// The claimed job files of list `id` in active/.
    func claimedJobs(ofList id: String) -> [(String, JobName)] {
        FileSystem.names(active).compactMap { name in
            guard name.hasPrefix(id), let entry = ActiveName(name), entry.job.list == id else { return nil }
            return (path(.active, name), entry.job)
        }
    }

    /// Every claimed job, with the age of its lease.
    public func activeJobs() -> [ActiveJob] {
        jobClaims.leases().compactMap { claim, age in
            JobName(claim.name).map { ActiveJob(job: $0, owner: claim.owner, age: age) }
        }
    }

    /// Sends back to the queue every active job whose lease is older than `lease` seconds.
    /// Safe to run from many processes at once. Foreign names in active/ are set aside.
    @discardableResult
    public func reclaimExpired(lease: Double) -> [JobName] {
        let setAside = { (path: String) in _ = self.setAside(path, reason: "not a claimed job name") }
        let expired = jobClaims.leases(foreign: setAside).filter { claim, age in
            guard JobName(claim.name) != nil else {
                setAside(jobClaims.path(of: claim))
                return false
            }
            return age > lease
        }
        return jobClaims.release(expired.map(\.0)).compactMap { JobName($0.name) }
    }

    /// Sends back the jobs of a process of this host known to be dead (the supervisor saw it exit).
    @discardableResult
    public func releaseJobs(ofPid pid: Int32) -> [JobName] {
        releaseJobs(ownedBy: { owner in owner.isLocal && owner.pid == pid })
    }

    /// Sends back every claim whose owner `isReleased` says is gone (FarmRegistry judges them by the registry).
    package func releaseJobs(ownedBy isReleased: (Owner) -> Bool) -> [JobName] {
        release(heldClaims(), ownedBy: isReleased)
    }

    /// The claims held now in every leased queue, listed before their owners are judged.
    package func heldClaims() -> [(LeasedQueue, [LeasedQueue.Claim])] { leasedQueues().map { ($0, $0.claims()) } }

    /// Sends back the claims of `held` (each queue with the claims listed in it) whose owners `isGone` says
    /// are gone, in every queue: one call for the jobs, pieces and hooks of a dead process. Returns the
    /// jobs sent back.
    package func release(_ held: [(LeasedQueue, [LeasedQueue.Claim])], ownedBy isGone: (Owner) -> Bool) -> [JobName] {
        var jobs: [JobName] = []
        for (queue, claims) in held {
            let released = queue.release(claims.filter { isGone($0.owner) }) { claim, group in
                log("ended process group \(group), which ran for \(claim.name): its worker is gone")
            }
            if queue.active == active { jobs += released.compactMap { JobName($0.name) } }
        }
        return jobs
    }

    /// The jobs of list `id` waiting in the returned batch (handed back by a release or a reclaim, or
    /// queued again by a reload), by index, with when each arrived there: its job file's ctime. The
    /// rename into the queue set it (a rename changes the inode's ctime, which the lease relies on
    /// too) and nothing touches the file while it waits; its mtime is still the add's. A queued job
    /// of `id` that is not here was never handed back: it waits in the batch that added it.
    public func handedBack(ofList id: String) -> [Int: Double] {
        var times: [Int: Double] = [:]
        for name in FileSystem.names(returnedShard) where name.hasPrefix(id) {
            guard let job = JobName(name), job.list == id,
                  let st = try? FileSystem.lstat(returnedShard + "/" + name) else { continue }
            times[job.index] = st.changeTime
        }
        return times
    }

    /// When `job` arrived in the returned batch (see `handedBack(ofList:)`); nil when it is not there.
    public func handedBack(_ job: JobName) -> Double? {
        (try? FileSystem.lstat(returnedShard + "/" + job.raw))?.changeTime
    }

    /// `returnToQueue` for a reclaimer, which has no caller to tell: false when the job was gone already
    /// or could not be moved, which is said in the log, once per claim and process (reclaimers try
    /// again every tick).
    private func handBack(_ source: String, job: JobName) -> Bool {
        do { return try returnToQueue(source, job: job) } catch {
            let name = String(source.dropFirst(active.count + 1))
            if Self.unmovedClaims.withLock({ $0.count < 1000 && $0.insert(name).inserted }) {
                log("cannot hand \(job) back to the queue: \(error)")
            }
            return false
        }
    }

    /// The claims this process failed to hand back and said so in the log.
    private static let unmovedClaims = Locked<Set<String>>([])
}
