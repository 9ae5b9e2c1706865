import FarmDesired
import FarmSpool
import FarmSystem

// fsck: the invariants of the spool protocol, checked and repaired (SPEC §10)
// ===========================================================================
//
// The protocol is FarmSpool's PROTOCOL.md, and what the headers of FarmLists, FarmDedup, FarmHosts,
// FarmPieces and FarmHooks add to it.
//
// What holds in a sound spool, and what `fsck` reports when it does not (`FsckFinding.Kind`):
//
// - Lists (FsckLists.swift). Every list record parses; its resource table has `total` lines that
//   parse; the list records of a committed batch were published; lists/ holds nothing else.
// - Jobs (FsckJobs.swift). Every job `<list>.<index>` of every list (index < total) is in exactly
//   one place: queued (any batch and shard, parked ones included), active, done or failed. A job in
//   none is lost, in two doubled. A job name that belongs to no list, or not where it is, is foreign.
//   No claim's owner is dead (not in the registry) with its lease (`Desired.lease`) run out. Only
//   claims of this host are judged by their owner's pid; another host's by their lease alone.
// - Outputs (FsckOutputs.swift). Every output a done job's outcome record names is there; files/
//   holds no output of a job that is queued, lost, or failed without a download (a failed
//   conversion keeps its download), and nothing that is no resource's output.
// - Stored results (FsckBlobs.swift). No blob that no output uses (nor a URL record of one), no URL
//   record whose blob is gone.
// - Leftovers (FsckFiles.swift). No temporary whose writer is gone (tmp/ and `*.tmp-<pid>`
//   anywhere under files/ or holds/), no partial download of a finished or unknown job that nobody
//   writes, no progress sidecar of an unknown job, no registry entry of a dead process. A
//   temporary's name carries its writer's pid but not its host: while another host runs farm
//   processes, one whose pid is gone here is judged by its age, as those with no pid are.
//
// Reading a live farm. A plain check only reads: it moves, sweeps and publishes nothing, and the
// locks it probes (registry entries, partials, stages) it holds for a moment. Jobs move while it
// reads, each by one rename, so one walk of the directories can see a job twice or not at all:
// such jobs are walked for again and reported only when the second walk agrees. A finding about a
// job's outputs is reported only once a fresh look says the job is still where it was.
//
// Repairs (`--repair`) touch only what no live process is working on, and never delete an output of
// a job that is done:
// - a done job whose outputs are gone goes back to the queue, its other outputs deleted, as
//   Durability.swift's `redo` does (it is no longer done);
// - a lost job is queued again (queue/0) from its line of the resource table;
// - of a doubled job, the copy in the most advanced state stays (done, failed, active, queued) and
//   the others are set aside in corrupt/; a claim whose owner lives stays wherever it ranks;
// - a dead claim past its lease goes back to the queue, its outputs (but not its partial bytes)
//   deleted first unless the job is also done or failed;
// - an output of a job that is not done is deleted after looking, just before, that the job is not
//   claimed nor done: a claim made since has downloaded nothing yet;
// - foreign files are set aside in corrupt/ (never deleted; a claim only once its owner is dead);
// - temporaries whose writer is gone, unlocked stages, unlocked partials of finished jobs, dead
//   registry entries are deleted; a damaged resource table is rebuilt from the job files (each holds
//   its line); committed lists are published. A damaged list record is only reported.
// Every move of a job is a rename that fails when the job has moved meanwhile.
//
// Cost: one listing of every directory, one read of each list's record and resource table, one read
// of each done job's outcome record (an extended attribute), and nothing per queued job but its
// name: no process per job, no read of job files. A second walk of the job directories only when
// some job looked lost or doubled.

/// The spool's checker: `farm fsck` (the comment above). A value holding the spool's layout; any
/// process may make one and use it.
public struct SpoolCheck: Sendable {
    public let spool: Spool

    public init(_ spool: Spool) { self.spool = spool }
}

extension SpoolCheck {
    /// Checks every invariant of the spool (the comment above), and with
    /// `repair` fixes what is safe to fix while the farm runs. `lease`: how long a claim stays its
    /// owner's (default: the farm's). Throws when a directory of the spool cannot be read: a check
    /// that cannot see everything must not call anything lost.
    public func run(repair: Bool = false, lease: Double? = nil) throws(SpoolError) -> FsckReport {
        let run = FsckRun(spool: spool, lease: lease ?? spool.control.desired().lease)
        try run.check()
        if repair { run.repair() }
        return run.report()
    }
}
