import FarmSpool

// Claims whose owners the registry says are gone: the leased queues are FarmSpool's, the judgement of
// their owners by `procs/` is this module's.

extension Registry {
    /// The live farm processes of every host (as `processes()`), after sending back every job of this
    /// host whose owner is not one of them, whoever saw it die (or nobody: it died while no supervisor
    /// ran). A claimant registers before its first claim and stays registered until it has handed its
    /// job back, so such a job has lost its owner; so do the pieces it held (PieceBoard.swift). active/ and
    /// the pieces are read before the registry: a claim listed was made by a process that was registered
    /// by then. One registry read serves both (the supervisor's tick). Other hosts' claims are theirs to
    /// judge, or the lease's: a host cut off from this one may look dead here while its workers still download.
    public func processesReleasingOrphans() -> (processes: [FarmProcess], released: [JobName]) {
        let held = spool.heldClaims()
        let live = processes()
        let alive = Set(live.filter(\.isLocal).map(\.pid))
        return (live, spool.release(held, ownedBy: { $0.isLocal && !alive.contains($0.pid) }))
    }

    /// Sends back every job, piece and hook but those of `keeping` (live processes of other hosts, which
    /// `farm stop` cannot signal): once this host's processes are gone, every other claim has lost its
    /// owner, a dead host's too.
    @discardableResult
    public func releaseJobs(keeping owners: [FarmProcess]) -> [JobName] {
        spool.releaseJobs(ownedBy: { owner in !owners.contains(where: owner.isClaimant) })
    }
}

extension Owner {
    /// Whether `process` is the claimant: the same pid on the same host.
    public func isClaimant(_ process: FarmProcess) -> Bool {
        pid == process.pid && hostTag == process.host.tag
    }
}
