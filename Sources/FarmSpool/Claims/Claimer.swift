import FarmJSON
import FarmSystem
import SystemPackage

/// Takes jobs off the queue for one worker (PROTOCOL.md, "Claim").
///
/// Keeps the sorted shard list of the batch it is draining, and the batches listed after it, so a claim
/// looks for queue/0 (handed-back jobs go first) at most every `returnedLook`, reads queue/ only when the
/// batches it listed are drained, and reads at most
/// one getdents batch of one shard, whatever the size of the queue. The names of that batch not
/// tried yet are kept too, and tried first by the next claim: most claims read no directory.
///
/// Every worker reads the same names in the same order. Each walks them from a random place; a
/// name it loses marks the start of another worker's walk, so it reads the shard again (only names
/// still queued come back) and starts elsewhere, so a loss ends a run of claims. (Were each to try
/// every name of a shared window in its own random order, each of k workers would lose about k - 1
/// renames per claim.)
/// Not thread-safe: one a thread, or one a worker process whose slots take turns (Worker.claim).
public final class Claimer {
    /// How many names one claim reads from a shard.
    static let pickWindow = 256

    public let spool: Spool
    /// Where the records of jobs claimed from an add's batch are read (see TableRecords).
    public let records: TableRecords
    private var cachedBatch: String?
    private var cachedShards: [String] = []
    /// The batches listed after `cachedBatch` when queue/ was last read (with parked ones skipped or not), tried
    /// in turn before queue/ is read again: a recursive list makes a batch for each page's links, so queue/
    /// may hold thousands of small batches, and reading it each time one is drained cost more than the claims.
    private var laterBatches: (batches: ArraySlice<String>, skippingParked: Bool) = ([], false)
    /// Names read from the first cached shard and not tried yet, in directory order, and where this
    /// worker's walk through them is.
    private var untried: [String] = []
    private var cursor = 0
    private var random = SplitMix64()
    /// Until when queue/0 is taken to be absent, as last seen. A stat of an absent name was 3% of a
    /// short job on tmpfs, which keeps no negative entries; a job handed back waits 50 ms at most.
    private var returnedAbsentUntil = -Double.infinity
    static let returnedLook = 0.05

    public init(spool: Spool) {
        self.spool = spool
        self.records = TableRecords(spool: spool)
    }

    /// A job file this process renamed into active/ (see "Claim"), whose record is not read yet: a
    /// claim once `load` has read it.
    public struct Taken: Sendable {
        public let job: JobName
        let owner: Owner
        let isFresh: Bool
        let claimed: Double
        /// The batch it was claimed from, when an add's.
        var batch: String? = nil
        /// The pack it was claimed in, with the rest of its shard (see `takePack`).
        public internal(set) var pack: String? = nil
    }

    /// How many shards of an add's batch must be left after one for that one to be claimed as a pack: a
    /// shallow queue is claimed job by job, so that every slot of the farm has work (a recursive list's
    /// batch of a page's links, the last jobs of a list). FARM_PACK_DEPTH in the environment sets it, for
    /// tests and diagnosis only (0: every shard is a pack, as bin/crashstates records them).
    static let packDepth = Processes.environment("FARM_PACK_DEPTH").flatMap { Int($0) }.map { max(0, $0) } ?? 8

    /// The next job, now owned by this process; nil when the queue is empty. With `skippingParked`,
    /// jobs parked for their host are left to `claim(parkedFor:)`; without it (no host can refuse a
    /// job now) they are claimed like any other, after the rest.
    public func claim(skippingParked: Bool = false) throws(SpoolError) -> Claim? {
        while let taken = try take(skippingParked: skippingParked) {
            if let claim = spool.load(taken, records: records) { return claim }
        }
        return nil
    }

    /// The next job parked for `host` (a `HostKey`'s raw name, see HostGate.swift); nil when there is none.
    /// The caller holds the host's leave to start it.
    public func claim(parkedFor host: String) throws(SpoolError) -> Claim? {
        while let taken = try take(fromBatch: Spool.parkedBatchPrefix + host) {
            if let claim = spool.load(taken, records: records) { return claim }
        }
        return nil
    }

    /// `claim(skippingParked:)`'s first half: the rename, which moves this claimer's walk through the
    /// queue on. Threads that share a claimer take turns at this half and `load` apart.
    public func take(skippingParked: Bool = false) throws(SpoolError) -> Taken? {
        try take(skippingParked: skippingParked, packs: false).first
    }

    /// `take(skippingParked:)`, which with `packs` may take a whole shard of an add's batch at once: every
    /// job of it, in order, all claimed by one owner (PROTOCOL.md, "Packs"). The caller works them all, or
    /// hands back those it does not. Empty when the queue is.
    public func take(skippingParked: Bool, packs: Bool) throws(SpoolError) -> [Taken] {
        takingPacks = packs
        return try takeOne(skippingParked: skippingParked).map { $0.pack == nil ? [$0] : packTaken } ?? []
    }

    /// Whether the current `take` may claim packs, and the members of the pack it claimed.
    private var takingPacks = false
    private var packTaken: [Taken] = []

    private func takeOne(skippingParked: Bool) throws(SpoolError) -> Taken? {
        // Draining a batch, only handed-back jobs may come first (any other new batch sorts after
        // it): one stat of their batch, not a read of queue/, while that batch is absent.
        if let batch = cachedBatch, batch != Spool.returnedBatch, !mayHaveReturnedJobs() {
            if let taken = try take(fromBatch: batch) { return taken }
            if laterBatches.skippingParked == skippingParked {
                while let next = laterBatches.batches.popFirst() {
                    if let taken = try take(fromBatch: next) { return taken }
                }
            }
        }
        let batches: [String]
        do {
            // While hosts may refuse jobs, parked ones are taken only through `claim(parkedFor:)`,
            // once their host has let the worker in: claiming them here would park them again. A held
            // list's jobs (Hold.swift) are nobody's until it is let go.
            batches = try FileSystem.listDirectory(spool.queue).filter {
                !$0.hasPrefix(".") && !HeldLists.isHeld(batch: $0)
                    && !(skippingParked && Spool.parkedHost(ofBatch: $0) != nil)
            }.sorted()
        } catch {
            throw SpoolError(.io, "cannot read \(spool.queue)", cause: error)
        }
        for (index, batch) in batches.enumerated() {
            if let taken = try take(fromBatch: batch) {
                laterBatches = (batches[(index + 1)...], skippingParked)
                return taken
            }
        }
        laterBatches = ([], skippingParked)
        return nil
    }

    /// A job handed back or put ahead by an edit (queue/0), if there is one: what a worker takes before the
    /// next member of a pack it holds, as it would before any other queued job (SPEC §8: order is priority).
    /// Looks at most every `returnedLook`.
    public func takeReturned() throws(SpoolError) -> Taken? {
        guard mayHaveReturnedJobs() else { return nil }
        takingPacks = false
        if let taken = try take(fromBatch: Spool.returnedBatch) { return taken }
        returnedAbsentUntil = Clock.monotonic() + Self.returnedLook
        return nil
    }

    /// Whether queue/0 may hold handed-back jobs: looked at once every `returnedLook`.
    private func mayHaveReturnedJobs() -> Bool {
        let now = Clock.monotonic()
        if now < returnedAbsentUntil { return false }
        if FileSystem.exists(spool.queue + "/" + Spool.returnedBatch) { return true }
        returnedAbsentUntil = now + Self.returnedLook
        return false
    }

    private func take(fromBatch batch: String) throws(SpoolError) -> Taken? {
        let batchPath = spool.queue + "/" + batch
        if cachedBatch != batch {
            untried = []
            do {
                cachedShards = try FileSystem.listDirectory(batchPath).filter { !$0.hasPrefix(".") }.sorted()
            } catch where error == .noSuchFileOrDirectory {
                return nil
            } catch where error == .notDirectory {
                spool.setAside(batchPath, reason: "a file where a queue batch should be")
                return nil
            } catch {
                throw SpoolError(.io, "cannot read \(batchPath)", cause: error)
            }
            cachedBatch = batch
        }
        while let shard = cachedShards.first {
            let shardPath = batchPath + "/" + shard
            if let taken = try takeUntried(from: shardPath) { return taken }
            if takingPacks && cachedShards.count > Self.packDepth && BatchName.isAdded(batch) {
                cachedShards.removeFirst()
                untried = []
                if let first = try takePack(shard, from: shardPath) { return first }
                continue
            }
            var names: [String]
            do {
                names = try FileSystem.listDirectory(shardPath, limit: Self.pickWindow)
            } catch where error == .noSuchFileOrDirectory {
                names = []
            } catch where error == .notDirectory {
                spool.setAside(shardPath, reason: "a file where a queue shard should be")
                names = []
            } catch {
                throw SpoolError(.io, "cannot read \(shardPath)", cause: error)
            }
            if names.isEmpty {
                // Drained: drop it. rmdir fails harmlessly if a handed-back job just arrived.
                try? FileSystem.rmdir(shardPath)
                cachedShards.removeFirst()
                untried = []
                continue
            }
            untried = names
            cursor = Int.random(in: 0..<names.count, using: &random)
            if let taken = try takeUntried(from: shardPath) { return taken }
        }
        cachedBatch = nil
        try? FileSystem.rmdir(batchPath)
        return nil
    }

    /// Claims the whole shard at `shardPath` as a pack, one rename of its folder into active/; its members,
    /// by index, go to `packTaken` and the first is returned. Nil when another claimer took the shard, or
    /// it was empty.
    private func takePack(_ shard: String, from shardPath: String) throws(SpoolError) -> Taken? {
        guard let batch = cachedBatch else { return nil }
        let pack = PackName.of(batch: batch, shard: shard), owner = Owner.fresh()
        guard try spool.moveToActive(shard: shardPath, pack: pack, owner: owner) else { return nil }
        let folder = spool.packPath(pack, owner)
        var jobs: [JobName] = []
        for name in FileSystem.names(folder) {
            if let job = JobName(name) { jobs.append(job) } else {
                spool.setAside(folder + "/" + name, reason: "not a job name")
            }
        }
        guard !jobs.isEmpty else {
            try? FileSystem.rmdir(folder)
            return nil
        }
        packTaken = jobs.sorted { $0.index < $1.index }.map {
            Taken(job: $0, owner: owner, isFresh: true, claimed: owner.claimedAt, batch: batch, pack: pack)
        }
        PackHolds.hold(folder, count: packTaken.count)
        return packTaken[0]
    }

    /// The next untried name from the cursor on (wrapping around); nil when there is none or it was
    /// lost, which drops the rest: they are read afresh.
    private func takeUntried(from shardPath: String) throws(SpoolError) -> Taken? {
        guard !untried.isEmpty else { return nil }
        if cursor >= untried.count { cursor = 0 }
        if let taken = try take(untried.remove(at: cursor), from: shardPath) { return taken }
        untried = []
        return nil
    }

    /// One attempt at one name: nil when another process won it or it was set aside.
    private func take(_ name: String, from shardPath: String) throws(SpoolError) -> Taken? {
        guard let job = JobName(name) else {
            spool.setAside(shardPath + "/" + name, reason: "not a job name")
            return nil
        }
        let owner = Owner.fresh()
        guard let claimed = try spool.moveToActive(shardPath + "/" + name, job: job, owner: owner) else {
            return nil  // another worker won this one
        }
        let isAdded = cachedBatch.map(BatchName.isAdded) ?? false
        return Taken(job: job, owner: owner, isFresh: isAdded, claimed: claimed, batch: isAdded ? cachedBatch : nil)
    }
}

extension Spool {
    /// `Claimer.claim`'s second half: the record of the job `taken`, now a claim; nil when the file was
    /// set aside or is gone already. A job from an add's batch is read from its list's table (`records`)
    /// when it is there. Any thread may call it.
    public func load(_ taken: Claimer.Taken, records: TableRecords) -> Claim? {
        let job = taken.job, owner = taken.owner, isFresh = taken.isFresh, claimed = taken.claimed
        if isFresh, let record = records.record(of: job) {
            return Claim(job: job, owner: owner, record: record, isFresh: isFresh, claimed: claimed, pack: taken.pack)
        }
        let target = active + "/" + ActiveName.raw(job, owner, pack: taken.pack)
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(target, limit: 64 << 10)
        } catch where error == .noSuchFileOrDirectory {
            return nil  // reclaimed already: it was never ours to work on
        } catch {
            setAside(target, reason: "job file cannot be read (\(error))")
            return nil
        }
        // An add's job file is empty, as is an edit's new resource's: its record is its table's line. Claimed
        // before its add published its lists (the add between its commit and its publishing, or killed
        // there), the claim publishes them, as recovery would.
        var record = bytes.isEmpty ? records.record(of: job) : JobRecord.decoded(from: bytes)
        if record == nil, bytes.isEmpty {
            if let batch = taken.batch { try? publishLists(ofBatch: batch) }
            // A reader of its own, with nothing cached, before the job is set aside: the table is its only copy.
            record = TableRecords(spool: self).record(of: job)
        }
        guard bytes.count <= 64 << 10, let record else {
            setAside(target, reason: bytes.isEmpty ? "job file is empty and its table has no line for it"
                : "job file does not parse")
            return nil
        }
        // Handed back after a completion by link whose unlink lost to a reclaim: done already, not to redo.
        if !isFresh && FileSystem.refusesNoReplace && dropIfCompleted(target, job) { return nil }
        return Claim(job: job, owner: owner, record: record, isFresh: isFresh, claimed: claimed, pack: taken.pack)
    }
}
