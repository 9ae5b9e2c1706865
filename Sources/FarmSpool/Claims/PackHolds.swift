import FarmSystem

/// The members of each pack this process claimed that it has not ended yet (PROTOCOL.md, "Packs"). The
/// member that ends last, whichever it is (a converter may end them out of order), removes the pack's
/// folder, empty by then. A count off by a member costs nothing lasting: removed too early, the folder is
/// not empty and stays; never removed, it is an empty claim whose lease runs out, removed at its reclaim.
enum PackHolds {
    private static let held = Locked<[String: Int]>([:])

    /// Notes the `count` members of the pack whose folder is `folder`, just claimed.
    static func hold(_ folder: String, count: Int) {
        held.withLock { $0[folder] = count }
    }

    /// Notes that one member of the pack at `folder` ended here (completed, handed back, parked, or found
    /// gone); true when it was the last this process held.
    static func end(_ folder: String) -> Bool {
        held.withLock { held in
            guard let count = held[folder] else { return false }
            if count > 1 {
                held[folder] = count - 1
                return false
            }
            held[folder] = nil
            return true
        }
    }
}

extension Spool {
    /// Notes that this process is done with `claim`, a pack's member, whatever became of it: the last one
    /// removes the pack's folder.
    package func memberEnded(_ claim: Claim) {
        guard let pack = claim.pack else { return }
        let folder = packPath(pack, claim.owner)
        if PackHolds.end(folder) { try? FileSystem.rmdir(folder) }
    }

    /// Removes the folder of `claim`'s pack if it is empty (its members sent back one by one by a recovery).
    package func dropEmptyPack(_ claim: ActiveJob) {
        guard let pack = claim.pack else { return }
        try? FileSystem.rmdir(packPath(pack, claim.owner))
    }

    /// The claim of `taken`, a member of a pack this process holds, as its slot starts it: its file is
    /// touched, which says it is still this owner's (an edit or a hold may take one job of a pack) and when
    /// it started, its ctime (views show it as the job's `changed` until its owner's first sidecar: the
    /// owner's name says when the pack was claimed). Nil when it is gone, which ends it here.
    public func startMember(_ taken: Claimer.Taken, records: TableRecords) -> Claim? {
        guard var claim = load(taken, records: records), (try? FileSystem.touch(claimPath(claim))) != nil else {
            memberEnded(taken)
            return nil
        }
        claim.claimed = Clock.wall()
        return claim
    }

    /// `memberEnded` of a member this process took and will not work (see `Claimer.Taken`).
    public func memberEnded(_ taken: Claimer.Taken) {
        guard let pack = taken.pack else { return }
        let folder = packPath(pack, taken.owner)
        if PackHolds.end(folder) { try? FileSystem.rmdir(folder) }
    }
}
