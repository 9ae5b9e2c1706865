import FarmSystem

// Claims: the life of a job in active/ (PROTOCOL.md, "Claim", "Lease", "Complete"), and what reads claims
// there. Claimer takes jobs; Lease renews, reclaims and releases them (jobs' `LeasedQueue`); Complete ends
// them; the renames themselves are Protocol/Moves.swift's; Inventory.swift lists every job's state.

/// A job this process holds: the name it was queued under, the per-claim owner, and its record.
public struct Claim: Sendable, Hashable {
    public let job: JobName
    public let owner: Owner
    public let record: JobRecord
    /// Claimed from an add's batch: never tried before, so it carries no attempts (see Retry.swift).
    public let isFresh: Bool
    /// When it was claimed, as its owner's name says it (PROTOCOL.md, "Claim"): when its resource started
    /// `downloading`, which its `changed` says until the next status (SPEC §4).
    public internal(set) var claimed: Double
    /// The pack it was claimed in (`PackName`), whose folder in active/ holds it; nil for a job claimed alone.
    public var pack: String? = nil

    public static func == (a: Claim, b: Claim) -> Bool { a.job == b.job && a.owner == b.owner }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(job)
        hasher.combine(owner)
    }
}
