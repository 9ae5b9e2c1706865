import FarmDedup
import FarmHooks
import FarmLists
import FarmRegistry
import FarmSpool
import FarmSystem

/// One fault `SpoolCheck.run` found: an invariant of the spool protocol that does not hold.
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
        /// A hook's claim (hooks/active/) whose owner is gone, past its lease.
        case deadHookClaim = "dead-hook-claim"
        /// A job of a list that is nowhere.
        case lost
        /// A job of a resource removed from its list (an edit killed before its end), still somewhere.
        case removed
        /// A hook due (hooks/queue/) for a resource that no longer exists.
        case strayHook = "stray-hook"
        /// An output of a job that is not done.
        case strayOutput = "stray-output"
        /// A done job one of whose outputs is gone.
        case missingOutput = "missing-output"
        /// A done job whose download is no longer what was recorded: another size, or (where a digest is
        /// kept) other bytes. Written in place through a name outside the spool: a `--link` delivery.
        case changedOutput = "changed-output"
        /// A done job with no outcome record: what it made is unknown.
        case noOutcome = "no-outcome"
        /// A partial download of a job that ended or does not exist, which nobody writes.
        case partial
        /// A temporary whose writer is gone.
        case temporary
        /// A stored blob no output uses, a URL record whose blob is gone, a lock file of a URL's transfer
        /// that nobody holds and nobody will resume from, a blob's URL list (see FarmDedup's protocol).
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

/// What `SpoolCheck.run` found, by kind then path; empty when the spool is sound.
public struct FsckReport: Sendable {
    public let findings: [FsckFinding]

    public var isClean: Bool { findings.isEmpty }
}

/// What one repair did.
enum FsckRepair {
    case made
    /// Not made, and why.
    case skipped(String)
}

/// One run of `SpoolCheck.run`: the lists and jobs it saw and the findings, each with the repair that
/// would fix it. The checks are in the extensions beside this file. Used by one call, on one thread.
final class FsckRun {
    typealias Action = () throws(SpoolError) -> FsckRepair

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
            guard let records = spool.lists.resources(ofList: list.id) else { return nil }
            for index in unfinished where index < records.count { keys.insert(Dedup.urlKey(records[index].url)) }
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
        let registry = spool.registry.scan()
        livePids = Set(registry.alive.filter(\.isLocal).map(\.pid))
        otherHostsRun = registry.alive.contains { !$0.isLocal }
        checkClaims()
        try checkHooks()
        try checkOutputs()
        try checkLeftovers(registry)
        settleUnknown()
    }

    /// Runs the repair of every finding, in the order of their kinds.
    func repair() {
        // Claims are judged by the registry as it is now, read after their listing.
        livePids = Set(spool.registry.scan().alive.filter(\.isLocal).map(\.pid))
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
        guard let entry = ActiveName(name) else { return false }
        // A pack's member has its pack's lease: its folder's ctime.
        let claim = entry.pack.map { $0 + "@" + entry.owner.raw } ?? name
        return isDeadClaim(at: spool.path(.active, claim), entry.owner)
    }

    /// Whether the claim at `path` (of a job or a hook) by `owner` has no live owner and its lease ran out.
    func isDeadClaim(at path: String, _ owner: Owner) -> Bool {
        guard !(owner.isLocal && livePids.contains(owner.pid)), let st = try? FileSystem.lstat(path) else { return false }
        return now - st.changeTime > lease
    }

    /// Whether `job` is claimed or done now: a fresh look at active/ and done/.
    func isClaimedOrDone(_ job: JobName) -> Bool {
        FileSystem.exists(spool.finishedPath(job, .done))
            || spool.isClaimed(job)
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
    /// By index: the SHA-256 each item gave (SPEC §12), read once a done output is checked.
    var items: [String?]?
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
