import FarmSystem

// fsck: the invariants of the spool protocol (Spool.swift), checked and repaired (SPEC §10)
// =========================================================================================
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
//   record whose blob is gone, no unheld lock file of a URL's transfer whose partial download is gone,
//   no URL list of a blob (an older farm's).
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

/// One fault `Spool.fsck` found: an invariant of the spool protocol that does not hold.
public struct FsckFinding: Sendable, Equatable {
    /// What kind of fault, as `farm fsck --json` names it; repairs run in this order.
    public enum Kind: String, Sendable, CaseIterable {
        /// A committed batch whose list records were never moved into lists/ (its `add` died).
        case unpublishedList = "unpublished-list"
        /// A list record that does not parse.
        case listRecord = "list-record"
        /// A resource table that is missing, has not `total` lines, or has a line that does not parse.
        case listTable = "list-table"
        /// A job in more than one place: two states, two queue batches, two claims.
        case doubled
        /// A claim whose owner is gone, past its lease.
        case deadClaim = "dead-claim"
        /// A job of a list that is nowhere.
        case lost
        /// A job of a resource removed from its list (an edit killed before its end), still somewhere.
        case removed
        /// An output of a job that is not done.
        case strayOutput = "stray-output"
        /// A done job one of whose outputs is gone.
        case missingOutput = "missing-output"
        /// A done job with no outcome record: what it made is unknown.
        case noOutcome = "no-outcome"
        /// A partial download of a job that ended or does not exist, which nobody writes.
        case partial
        /// A temporary whose writer is gone.
        case temporary
        /// A stored blob no output uses, a URL record whose blob is gone, a lock file of a URL's transfer
        /// that nobody holds and nobody will resume from, a blob's URL list (see "Once" in the protocol).
        case blob
        /// A file that is no job, no output, or not where it belongs.
        case foreign
        /// A registry entry of a process that is gone.
        case deadRegistration = "dead-registration"
    }

    public let kind: Kind
    /// Where, relative to the spool's root.
    public let path: String
    /// The job it is about, if one.
    public let job: JobName?
    /// What is wrong; after a repair that was not made, why not.
    public internal(set) var detail: String
    /// Whether `--repair` fixed it.
    public internal(set) var repaired = false
}

extension FsckFinding.Kind {
    /// Where the kind comes in the report, and when its repairs run.
    var order: Int { Self.allCases.firstIndex(of: self)! }
}

/// What `Spool.fsck` found, by kind then path; empty when the spool is sound.
public struct FsckReport: Sendable {
    public let findings: [FsckFinding]

    public var isClean: Bool { findings.isEmpty }
}

extension Spool {
    /// Checks every invariant of the spool (see the comment at the top of Fsck.swift), and with
    /// `repair` fixes what is safe to fix while the farm runs. `lease`: how long a claim stays its
    /// owner's (default: the farm's). Throws when a directory of the spool cannot be read: a check
    /// that cannot see everything must not call anything lost.
    public func fsck(repair: Bool = false, lease: Double? = nil) throws(SpoolError) -> FsckReport {
        let run = FsckRun(spool: self, lease: lease ?? desired().lease)
        try run.check()
        if repair { run.repair() }
        return run.report()
    }
}

/// What one repair did.
enum FsckRepair {
    case made
    /// Not made, and why.
    case skipped(String)
}

/// One run of `Spool.fsck`: the lists and jobs it saw and the findings, each with the repair that
/// would fix it. The checks are in the extensions beside this file. Used by one call, on one thread.
final class FsckRun {
    typealias Action = () throws(SpoolError) -> FsckRepair

    /// Temporaries whose names carry no writer's pid are left alone until this old: no writer of farm
    /// keeps one open nearly that long.
    static let temporaryAge = 60.0
    /// An unlocked stage of an add is left alone until it has not changed for this long.
    static let stageAge = 2.0

    let spool: Spool
    let lease: Double
    let now = Clock.wall()
    /// The lists of the spool, by id: published, or committed with their batch.
    var lists: [String: FsckList] = [:]
    /// Claims seen by the first walk, of jobs of known lists.
    var claims: [(name: String, entry: ActiveName)] = []
    /// Where the second walk found the jobs it looked for.
    var locations: [JobName: [(state: JobState, path: String)]] = [:]
    /// The jobs both walks found in more than one place.
    var doubled: Set<JobName> = []
    /// Things named after a list that the spool did not have when it was read: reported only if it
    /// still has none at the end (a list published meanwhile owns them).
    var unknown: [String: [(path: String, job: JobName?, reason: String)]] = [:]
    /// The pids of this host's farm processes registered alive, read after the walk of active/.
    var livePids: Set<Int32> = []
    /// Whether farm processes of other hosts are registered alive: a pid in a temporary's name may be
    /// theirs.
    var otherHostsRun = false
    private var findings: [(finding: FsckFinding, action: Action?, unrepairable: String?)] = []
    /// The keys of the URLs of jobs seen queued or claimed (whose URL's partial download may be resumed);
    /// nil when a list with such jobs has no table that reads, so nothing is known.
    lazy var unfinishedURLKeys: Set<String>? = {
        var keys: Set<String> = []
        for list in lists.values {
            let unfinished = list.seen.indices.filter { list.seen[$0] & (FsckList.queued | FsckList.active) != 0 }
            if unfinished.isEmpty { continue }
            guard let records = spool.resources(ofList: list.id) else { return nil }
            for index in unfinished where index < records.count { keys.insert(Spool.urlKey(records[index].url)) }
        }
        return keys
    }()

    init(spool: Spool, lease: Double) {
        self.spool = spool
        self.lease = lease
    }

    func check() throws(SpoolError) {
        try readLists()
        try walkForJobs()
        let registry = spool.scanRegistry()
        livePids = Set(registry.alive.filter(\.isLocal).map(\.pid))
        otherHostsRun = registry.alive.contains { !$0.isLocal }
        checkClaims()
        try checkOutputs()
        try checkLeftovers(registry)
        settleUnknown()
    }

    /// Runs the repair of every finding, in the order of their kinds.
    func repair() {
        // Claims are judged by the registry as it is now, read after their listing.
        livePids = Set(spool.scanRegistry().alive.filter(\.isLocal).map(\.pid))
        let order = findings.indices.sorted { (findings[$0].finding.kind.order, $0) < (findings[$1].finding.kind.order, $1) }
        for index in order {
            guard let action = findings[index].action else {
                findings[index].finding.detail += "; not repaired: "
                    + (findings[index].unrepairable ?? "no safe repair")
                continue
            }
            let outcome: FsckRepair
            do { outcome = try action() } catch { outcome = .skipped("\(error)") }
            switch outcome {
            case .made:
                findings[index].finding.repaired = true
                let finding = findings[index].finding
                spool.log("fsck repaired \(finding.kind.rawValue) \(finding.path): \(finding.detail)")
            case .skipped(let reason):
                findings[index].finding.detail += "; not repaired: " + reason
            }
        }
    }

    func report() -> FsckReport {
        FsckReport(findings: findings.map(\.finding).sorted { ($0.kind.order, $0.path) < ($1.kind.order, $1.path) })
    }

    /// Records a finding at `path` (absolute), with the repair that fixes it, or why there is none.
    func found(_ kind: FsckFinding.Kind, _ path: String, job: JobName? = nil, _ detail: String,
               unrepairable: String? = nil, repair: Action?) {
        findings.append((FsckFinding(kind: kind, path: relative(path), job: job, detail: detail), repair, unrepairable))
    }

    /// A foreign file at `path`: set aside in corrupt/ by a repair.
    func foreign(_ path: String, job: JobName? = nil, _ reason: String) {
        found(.foreign, path, job: job, reason, repair: setAside(path, claimed: false, reason: reason))
    }

    /// `path` as the findings show it: relative to the spool's root.
    func relative(_ path: String) -> String {
        path.hasPrefix(spool.root + "/") ? String(path.dropFirst(spool.root.count + 1)) : path
    }

    /// Whether the claim `active/<name>` has no live owner and its lease ran out: nobody works on it.
    /// Another host's claim is judged by its lease alone: its pid means nothing here, and that host's
    /// registry entries may look alive (or dead) while it is cut off.
    func isDeadClaim(_ name: String) -> Bool {
        guard let entry = ActiveName(name), !(entry.owner.isLocal && livePids.contains(entry.owner.pid)),
              let st = try? FileSystem.lstat(spool.active + "/" + name) else { return false }
        return now - st.changeTime > lease
    }

    /// Whether `job` is claimed or done now: a fresh look at active/ and done/.
    func isClaimedOrDone(_ job: JobName) -> Bool {
        FileSystem.exists(spool.finishedPath(job, .done))
            || FileSystem.names(spool.active).contains { ActiveName($0)?.job == job }
    }

    /// The entries of directory `path` (none when it is gone); throws when it cannot be read.
    func entries(_ path: String) throws(SpoolError) -> [(name: String, isDirectory: Bool)] {
        do { return try FileSystem.listEntries(path) } catch where
            error == .noSuchFileOrDirectory || error == .notDirectory {
            return []
        } catch {
            throw SpoolError(.io, "cannot read \(path)", cause: error)
        }
    }

    /// The names in directory `path` (none when it is gone); throws when it cannot be read.
    func names(_ path: String) throws(SpoolError) -> [String] {
        do { return try FileSystem.listDirectory(path) } catch where
            error == .noSuchFileOrDirectory || error == .notDirectory {
            return []
        } catch {
            throw SpoolError(.io, "cannot read \(path)", cause: error)
        }
    }
}

/// One list as fsck sees it: its record and table, and where each of its jobs was seen.
final class FsckList {
    /// Where a job was seen, one bit per state, and `again` when it was seen twice in one state.
    static let queued: UInt8 = 1, active: UInt8 = 2, done: UInt8 = 4, failed: UInt8 = 8, again: UInt8 = 16

    static func bit(_ state: JobState) -> UInt8 {
        switch state {
        case .queued: queued
        case .active: active
        case .done: done
        case .failed: failed
        }
    }

    let id: String
    var record: ListRecord?
    /// How many jobs it has: the record's total, else the number of lines of its table (for an edited
    /// list, always the lines: each resource it ever had); nil when neither reads (its jobs cannot be told
    /// from strangers, so none of them is judged).
    var total: Int?
    /// For an edited list, the job numbers of resources removed from it (in the table, not in its order),
    /// which must be nowhere; nil for a list never edited.
    var removed: Set<Int>?
    /// Job numbers an edit (a page of a paged list) is adding or removing as fsck looks: not judged.
    var inFlight: Set<Int> = []
    /// Indexes whose line of the resource table is missing or does not parse.
    var badLines: [Int] = []
    /// By index: where the job was seen (bits above).
    var seen: [UInt8] = []
    /// By index: which outputs of `FsckRun.outputSuffixes` files/<list>/ holds, and the others.
    var outputs: [UInt16] = []
    var otherOutputs: [Int: [String]] = [:]
    /// The resource table as the repairs read it again, and its lines.
    var reread: (bytes: [UInt8], lines: [Range<Int>])?

    init(id: String) {
        self.id = id
    }

    /// Whether the job `index` needs a second look: a resource lost or doubled, or a removed one seen.
    func isSuspect(_ index: Int) -> Bool {
        if inFlight.contains(index) { return false }
        if removed?.contains(index) == true { return seen[index] != 0 }
        return FsckRun.isSuspect(seen[index])
    }
}
