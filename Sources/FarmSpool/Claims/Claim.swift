import FarmSystem

// Claims: the life of a job in active/, and what reads claims there. A job is claimed by the rename of
// its queue entry into active/ under an owner name (Claimer), kept by renewing that entry's ctime (a
// touch of its atime sets it and leaves the mtime alone) (Lease: renew, and the reclaim of leases that
// expired), given back by the rename home (Lease: release, and the hand-back of a dead owner's jobs),
// and ended by the one rename into done/ or failed/
// (Complete). The renames themselves are in Protocol/Moves.swift, the one place that moves between the
// protocol's folders; Inventory.swift lists every job's state, active/ among the others, for fsck and views.

/// A job this process holds: the name it was queued under, the per-claim owner, and its record.
public struct Claim: Sendable, Hashable {
    public let job: JobName
    public let owner: Owner
    public let record: JobRecord
    /// Claimed from an add's batch: never tried before, so it carries no attempts (see Retry.swift).
    public let isFresh: Bool
    /// When it was claimed, as the job file's mtime says it (see "Claim"): when its resource started
    /// `downloading`, which its `changed` says until the next status (SPEC §4).
    public let claimed: Double

    public static func == (a: Claim, b: Claim) -> Bool { a.job == b.job && a.owner == b.owner }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(job)
        hasher.combine(owner)
    }
}
