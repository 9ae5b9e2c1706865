import FarmSystem

/// Held lists (PROTOCOL.md, "Hold"). A held job is a queued job in its list's held batch, `queue/l<list>/s/`,
/// which no claimer reads: fsck, the status (queued = total − active − done − failed) and `farm stop`'s sweep
/// of partials count it as queued, as it is. Its partial bytes stay where they are, for the next owner once
/// the list is let go. A part of a `Spool`, reached as `spool.held`. A value; any thread or process.
public struct HeldLists: Sendable {
    private let spool: Spool

    init(_ spool: Spool) { self.spool = spool }

    /// The queue batch of the held jobs of a list, by its name in queue/ (`l<list>`).
    package static let batchPrefix = "l"

    /// The shard the held jobs of list `id` wait in.
    func shard(ofList id: String) -> String { spool.path(.queue, Self.batchPrefix + id, "s") }

    /// Whether the queue batch named `batch` holds a held list's jobs (no claimer takes them).
    public static func isHeld(batch: String) -> Bool {
        batch.hasPrefix(batchPrefix) && ListID.isValid(String(batch.dropFirst()))
    }

    /// Whether list `id` is held: its held batch is there (made before its first job moves in, removed
    /// after its last moves out), as the watcher sees it appear in queue/ and go.
    public func contains(_ id: String) -> Bool { FileSystem.exists(spool.path(.queue, Self.batchPrefix + id)) }

    /// The lists that have held batches: one read of queue/, which holds a few names.
    public func lists() -> Set<String> {
        Set(FileSystem.names(spool.queue).filter(Self.isHeld(batch:)).map { String($0.dropFirst()) })
    }

    /// Takes every job of list `id` that is queued or claimed out of the workers' reach, into its held
    /// batch, and returns how many it moved. A claimed job is taken from its owner as a reclaim takes it:
    /// the owner's next renewal finds it gone and stops its transfer, keeping the bytes it wrote. Walks
    /// the queue, then active/, again until a walk finds none: a job handed back or claimed during one
    /// walk is found by the next. Jobs done or failed are left alone.
    public func hold(list id: String) throws(SpoolError) -> Int {
        let target = shard(ofList: id)
        var moved = 0
        for _ in 0..<8 {
            var found = 0
            for (path, job) in queuedJobs(ofList: id) + spool.claimedJobs(ofList: id) {
                found += 1
                if try spool.moveToQueue(path, job: job, shard: target) { moved += 1 }
            }
            if found == 0 { return moved }
        }
        return moved
    }

    /// Lets the held jobs of list `id` go: back in the batch of handed-back jobs, claimed first, each to
    /// resume from the bytes it has. Returns how many.
    public func release(list id: String) throws(SpoolError) -> Int {
        let shard = shard(ofList: id)
        var moved = 0
        for name in FileSystem.names(shard) {
            guard let job = JobName(name), job.list == id else {
                spool.setAside(shard + "/" + name, reason: "not a job of the held list \(id)")
                continue
            }
            if try spool.returnToQueue(shard + "/" + name, job: job) { moved += 1 }
        }
        try? FileSystem.rmdir(shard)
        try? FileSystem.rmdir(spool.path(.queue, Self.batchPrefix + id))
        if moved > 0 { spool.control.ringBell() }
        return moved
    }

    /// The queued job files of list `id` outside its held batch, parked ones included.
    private func queuedJobs(ofList id: String) -> [(String, JobName)] {
        var jobs: [(String, JobName)] = []
        for batch in FileSystem.names(spool.queue) where !batch.hasPrefix(".") && !Self.isHeld(batch: batch) {
            for shard in FileSystem.names(spool.path(.queue, batch)) where !shard.hasPrefix(".") {
                for name in FileSystem.names(spool.path(.queue, batch, shard)) where name.hasPrefix(id) {
                    guard let job = JobName(name), job.list == id else { continue }
                    jobs.append((spool.path(.queue, batch, shard, name), job))
                }
            }
        }
        return jobs
    }
}

extension Spool {
    /// The held lists and their moves.
    public var held: HeldLists { HeldLists(self) }
}
