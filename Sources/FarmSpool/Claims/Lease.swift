import FarmSystem
import SystemPackage

/// A claimed job as seen in active/, by anyone.
public struct ActiveJob: Sendable {
    public let job: JobName
    public let owner: Owner
    /// Seconds since the lease was last renewed.
    public let age: Double
    /// The pack it was claimed in, if any.
    public var pack: String? = nil

    /// Its name under active/ (see `ActiveName`).
    public var name: String { ActiveName.raw(job, owner, pack: pack) }
}

extension Spool {
    /// Jobs' leased queue: claimed from their batches' shards (Claimer) into active/, handed back to queue/0;
    /// a pack's folder goes back whole, as a shard of queue/0 (PROTOCOL.md, "Packs").
    var jobClaims: LeasedQueue {
        LeasedQueue(waiting: returnedShard, active: active) { [self] source, name in
            if let job = JobName(name) { return handBack(source, job: job) }
            return PackName.isValid(name) && handBack(pack: source, name)
        }
    }

    /// Every leased queue of the spool: hooks, each board's pieces, jobs (in the order a release takes them:
    /// a job handed back finds its pieces free).
    func leasedQueues() -> [LeasedQueue] {
        [hooks.claims] + FileSystem.names(pieces).map { pieceQueue(ofBoard: pieces + "/" + $0) } + [jobClaims]
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
            if let pack = claim.pack {
                // The member's file says it is still ours (an edit or a hold may take one job of a pack);
                // the pack's folder carries the lease of all its members.
                try FileSystem.touch(claimPath(claim))
                try FileSystem.touch(packPath(pack, claim.owner))
            } else {
                try jobClaims.renew(LeasedQueue.Claim(name: claim.job.raw, owner: claim.owner))
            }
        } catch where error == .noSuchFileOrDirectory {
            throw SpoolError(.leaseLost, "job \(claim.job) was reclaimed from this worker")
        } catch {
            throw SpoolError(.io, "cannot renew the lease of \(claim.job)", cause: error)
        }
    }

    /// Whether `claim` is still its owner's: one stat of its file in active/. For an owner that could not
    /// renew for a while (its host cut off from the spool): a reclaim may have taken the job meanwhile.
    public func holds(_ claim: Claim) -> Bool {
        FileSystem.exists(claimPath(claim))
    }

    /// Hands `claim` back to the queue (stop, scale down); `.leaseLost` when it was no longer ours.
    public func release(_ claim: Claim) throws(SpoolError) {
        defer { memberEnded(claim) }
        guard try returnToQueue(claimPath(claim), job: claim.job) else {
            throw SpoolError(.leaseLost, "job \(claim.job) was reclaimed from this worker")
        }
    }



    /// The names of every claimed job under active/, as `ActiveName` parses them: `<job>@<owner>`, and each
    /// member of a claimed pack, `<pack>@<owner>/<job>` (one more directory read a pack). With `inFlight`,
    /// a pack's members but its first are left out: its owner works them in order, and the others wait
    /// in it as they waited in the queue, which is what views show them as (SPEC §4's `active` counts the
    /// transfers at work). Foreign names are left out (fsck and reclaims see them).
    public func claimedNames(inFlight: Bool = false) -> [String] {
        var names: [String] = []
        for name in FileSystem.names(active) {
            guard let at = name.firstIndex(of: "@"), PackName.isValid(String(name[..<at])) else {
                names.append(name)
                continue
            }
            let members = FileSystem.names(active + "/" + name).compactMap(JobName.init)
            if inFlight {
                if let first = members.min(by: { $0.index < $1.index }) { names.append(name + "/" + first.raw) }
            } else {
                names += members.map { name + "/" + $0.raw }
            }
        }
        return names
    }

    /// Whether `job` is claimed now, by anyone: a fresh look at active/.
    public func isClaimed(_ job: JobName) -> Bool {
        claimedNames().contains { ActiveName($0)?.job == job }
    }

    /// Whether any job is claimed now: some transfer may be writing its partial.
    var hasClaims: Bool {
        claimedNames().contains { ActiveName($0) != nil }
    }

    /// The claimed job files of list `id` in active/.
    func claimedJobs(ofList id: String) -> [(String, JobName)] {
        claimedNames().compactMap { name in
            guard let entry = ActiveName(name), entry.job.list == id else { return nil }
            return (path(.active, name), entry.job)
        }
    }

    /// Every claimed job, with the age of its lease (a pack's member: its pack's); with `inFlight`, of a pack's
    /// members only the first (see `claimedNames`).
    public func activeJobs(inFlight: Bool = false) -> [ActiveJob] {
        jobClaims.leases().flatMap { claim, age -> [ActiveJob] in
            if let job = JobName(claim.name) { return [ActiveJob(job: job, owner: claim.owner, age: age)] }
            guard PackName.isValid(claim.name) else { return [] }
            let members = members(ofPack: jobClaims.path(of: claim))
            let shown = inFlight ? members.min { $0.index < $1.index }.map { [$0] } ?? [] : members
            return shown.map {
                ActiveJob(job: $0, owner: claim.owner, age: age, pack: claim.name)
            }
        }
    }

    /// The jobs in the claimed pack's folder at `folder`.
    func members(ofPack folder: String) -> [JobName] { FileSystem.names(folder).compactMap(JobName.init) }

    /// Sends back to the queue every active job whose lease is older than `lease` seconds.
    /// Safe to run from many processes at once. Foreign names in active/ are set aside.
    @discardableResult
    public func reclaimExpired(lease: Double) -> [JobName] {
        let setAside = { (path: String) in _ = self.setAside(path, reason: "not a claimed job name") }
        let expired = jobClaims.leases(foreign: setAside).filter { claim, age in
            guard JobName(claim.name) != nil || PackName.isValid(claim.name) else {
                setAside(jobClaims.path(of: claim))
                return false
            }
            return age > lease
        }
        return release([(jobClaims, expired.map(\.0))], ownedBy: { _ in true })
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
            let gone = claims.filter { isGone($0.owner) }
            // A pack's members, listed before it moves: what it sends back.
            let packs = queue.active == active
                ? Dictionary(gone.filter { PackName.isValid($0.name) }.map { ($0.raw, members(ofPack: queue.path(of: $0))) },
                             uniquingKeysWith: { a, _ in a })
                : [:]
            let released = queue.release(gone) { claim, group in
                log("ended process group \(group), which ran for \(claim.name): its worker is gone")
            }
            if queue.active == active {
                jobs += released.flatMap { JobName($0.name).map { [$0] } ?? packs[$0.raw] ?? [] }
            }
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
        // A pack sent back whole: the rename of its folder set the folder's ctime, not its jobs'.
        let returned = queue + "/" + Self.returnedBatch
        for pack in FileSystem.names(returned) where PackName.isValid(pack) {
            let folder = returned + "/" + pack
            guard let st = try? FileSystem.lstat(folder) else { continue }
            for name in FileSystem.names(folder) where name.hasPrefix(id) {
                if let job = JobName(name), job.list == id { times[job.index] = st.changeTime }
            }
        }
        return times
    }

    /// When `job` arrived in the returned batch (see `handedBack(ofList:)`); nil when it is not there.
    public func handedBack(_ job: JobName) -> Double? {
        if let st = try? FileSystem.lstat(returnedShard + "/" + job.raw) { return st.changeTime }
        let returned = queue + "/" + Self.returnedBatch
        for pack in FileSystem.names(returned) where PackName.isValid(pack) {
            if FileSystem.exists(returned + "/" + pack + "/" + job.raw) {
                return (try? FileSystem.lstat(returned + "/" + pack))?.changeTime
            }
        }
        return nil
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

    /// `moveToQueue(pack:)` for a reclaimer, which has no caller to tell (see `handBack(_:job:)`).
    private func handBack(pack source: String, _ pack: String) -> Bool {
        do { return try moveToQueue(pack: source, pack) } catch {
            let name = String(source.dropFirst(active.count + 1))
            if Self.unmovedClaims.withLock({ $0.count < 1000 && $0.insert(name).inserted }) { log("\(error)") }
            return false
        }
    }

    /// The claims this process failed to hand back and said so in the log.
    private static let unmovedClaims = Locked<Set<String>>([])
}
