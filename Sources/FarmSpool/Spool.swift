// The farm spool protocol
// =======================
//
// Every farm process (coordinator, supervisor, workers, watcher, follower) coordinates only through this
// directory. Any of them can die at any instant, with SIGKILL; the rules below make every such
// death cost at most a redo, never a lost or doubled job.
//
// Layout (the spool itself is mode 0700):
//
//     .farm-spool                    marker: this directory is a spool (reset and the CLI check it)
//     queue/<batch>/<shard>/<job>    jobs waiting to be claimed
//     active/<job>@<owner>           claimed jobs; the file's ctime is its owner's lease; <owner> says when
//                                    it was claimed
//     done/<list>/<job>              jobs completed for good, each with its outcome record (an xattr)
//     failed/<list>/<job>            jobs that failed for good, likewise
//     lists/<list>.json              list records, published only once all their jobs are queued
//     lists/<list>.resources         each list's resource table: the job records by job number
//     lists/<list>.own               its jobs marked own at its add, by their URL's key (FarmLists' URLSharing)
//     lists/<list>.order             an edited list's order; .lock, .edit and .*.new: its edits' (FarmLists)
//     lists/<list>.pages             a paged list's page log while it is followed; .paged once done (FarmLists)
//     lists/<list>.request           what the list's requests carry, secrets included (mode 0600), published
//                                    with its record
//     progress/<job>.json            the owner's progress sidecar (Sidecar, naming its claim), replaced by
//                                    rename; only for jobs longer than a tick or stored and waiting for their
//                                    owner's conversion (which may follow its later transfers), deleted once
//                                    the job ends
//     partial/u<key>                 bytes of a URL downloaded so far; the writer holds an flock on it,
//                                    which is the URL's lock (FarmDedup); partial/<job>: a job's own
//     pieces/<partial>/              a resource fetched as pieces (SPEC §14), beside its partial: its plan,
//                                    and its pieces waiting, held and done (PieceBoard.swift)
//     files/<list>/                  outputs: the downloaded file and its display image; a paged list's cover.*
//     control/                       desired state: desired.json, paused, stopping; per host,
//                                    desired.<host>.json and supervisor.<host>.lock (HostControl.swift);
//                                    watcher.lock (ServingWatcher.swift); follower.lock (the follower of
//                                    paged lists); synced, the last bulk sync of finished jobs (Durability.swift)
//     procs/<role>.<pid>.<nonce>.<host>  one entry per live process, flock'ed by it for its lifetime
//     metrics/<role>.<pid>.<nonce>.<host>.json  the counters of the process registered under that name in procs/,
//                                    replaced by rename about once a second and as it exits; folded.json,
//                                    those of processes gone, and fold.lock, held while they are folded in
//                                    (the protocol is at the top of FarmMetrics/MetricFiles.swift)
//     status/                        the watcher's aggregated status
//     tmp/                           staging; whatever is here is garbage once its writer is gone
//                                    (`<prefix>-<pid>.<host tag>-<nonce>`: `scratchPath`, `sweepScratch`)
//     corrupt/                       damaged or foreign files, set aside (never deleted)
//     log/farm.log                   one line per event worth a human's attention
//     hosts/<host>/                  per-host transfer slots and token bucket (FarmHosts)
//     holds/<host>                   a host held after a 429 or 503 with Retry-After (FarmHosts)
//     queue/h<host>/p/<job>          queued jobs parked until their host lets a worker in (FarmHosts)
//     queue/l<list>/s/<job>          queued jobs of a held list, which no claimer takes until it is let go
//                                    (Hold.swift: `farm get`'s ^C on a farm that runs other lists)
//     blobs/<slot>                   stored bytes: one more name of a downloaded file, by size and content
//                                    (FarmDedup's BlobSlots.swift)
//     urls/<key>                     the valid result of one URL (<key>: its SHA-256), a symbolic link's
//                                    text (FarmDedup)
//     hooks/                         the hooks of lists that have one (SPEC §15): due, running, and how each
//                                    ended (Hooks.swift)
//
// Names. A <job> is `<list>.<n>`: the list id (16 lowercase hex digits) and the job's number in
// the list, which is the resource's line in the list's resource table and never changes; it is the
// resource's 0-based index until the list is edited (FarmLists). A job file holds one line of JSON
// (`JobRecord`: the URL and resource id); it is never modified after it is written, only renamed. An <owner> is `<pid>-<nonce>-<tag>`, fresh
// for every claim, where <tag> is 8 hex digits naming the claimant's host (`FarmHost.tag`); an older
// farm's `<pid>-<nonce>` counts as this host's. A <host> is the host name, in lower case and escaped
// (`FarmHost`). A <batch> is `b<µs since epoch>-<nonce>` (one per `add` or `reload`, so batches sort
// in the order they were made); the batch `0` holds jobs handed back (shard `r`) and jobs an edit put
// ahead (shards `p<position>-<age>`, which sort first), so they are claimed first.
// A <shard> is `s<number>` and holds at most `Spool.shardSize` jobs.
//
// Add (Enqueuer). The coordinator writes every job file of a batch, sharded (a shard at a time on
// each core: ShardWriter), and the batch's list records (in `.lists/`) under `tmp/stage-<nonce>/`,
// holding an flock on that directory. One syncfs(2) then makes all of it durable (one flush instead
// of one fsync per job), and one rename(2) of the stage to `queue/<batch>` publishes every job at
// once: that rename is the commit point, and queue/ is fsynced after it. Then the list records are
// renamed from `queue/<batch>/.lists/` into `lists/` (and lists/ is fsynced). A coordinator killed
// before the commit leaves a stage whose lock is free: recovery deletes it and nothing was visible.
// Killed after it, the batch still holds `.lists/`: recovery (run by the next `add`, by `start`, by
// the supervisor) finishes the renames. A list therefore never shows up with some of its jobs
// missing.
//
// Claim (Claimer). A worker lists queue/ (a few batches), takes the lowest batch and its lowest shard (the
// shard list is cached between claims), reads one getdents batch of names from it (never the whole
// directory), and renames one to `active/<job>@<owner>`. While it drains a batch it only checks that queue/0
// is absent (every 50 ms at most) instead of listing queue/ again: a new batch sorts after its own. The
// rename is the claim: exactly one contender wins, the losers get ENOENT and pick again. Each worker walks
// the names from a random place and jumps elsewhere at random when it loses one, which keeps concurrent
// workers off each other's names; a worker's transfers share one walk, taking turns at the rename (each then
// reads its record on its own). A job claimed from an add's batch is read from line N of its list's resource
// table, which holds the same bytes and never changes (TableRecords.swift): its claim is the rename alone.
// Any other job, and one whose table is not published yet, is read from its job file. The rename also sets the file's ctime, which starts the lease. The
// owner's name carries the time of its claim (to the millisecond, see `Owner`): the time its resource
// started `downloading`, which the status shows as its `changed` (SPEC §4) until its owner's sidecar says
// another status, with no system call at the claim (an older farm set the claimed file's mtime, which
// renewals leave: they set its atime). Empty shards and batches are removed with rmdir(2), which fails harmlessly when a job has just
// arrived. A claim is not fsynced: if a power loss undoes it, the job is simply queued.
//
// Lease. The owner renews by touching `active/<job>@<owner>` (utimensat of its atime, which sets its ctime
// and leaves the mtime) every lease/4. A worker may own several claims: the jobs it transfers (up to
// its transfers at once, SPEC §13, each claimed under an owner name of its own) and the jobs whose downloads
// it stored and its converter has not completed yet; each is renewed, and lost, on its own. A renewal that
// finds the name gone (ENOENT) means the lease was lost: the owner stops.
// Anyone may reclaim (supervisor, idle workers, `start`), on any host: an active file whose ctime is
// older than the lease is renamed back to `queue/0/r/<job>`; two reclaimers race on that rename and
// one wins. The supervisor does the same at once for a worker of its own host it saw die (the pid and
// the host's tag are in the name); it never judges another host's claim by its pid.
//
// Complete. The owner sets its outcome record (the last Sidecar: what it made, or why it failed) as
// the extended attribute `user.farm.outcome` of `active/<job>@<owner>` (or, where the file system
// has none, writes it to progress/), then renames that file to `done/<list>/<job>` (or failed/), with
// RENAME_NOREPLACE; the record moves with the job, in the same step. A record left on a job file
// that went back to the queue is not its outcome (readers look for outcomes in done/ and failed/
// only); its next owner reads the attempts so far from it, which is how `farm retry` (Retry.swift)
// keeps counting, and the end of a back-off (`retryAt`), set before the wait, which it waits out too.
// Because the owner's name includes its per-claim nonce, the rename fails with ENOENT as soon as
// the job was reclaimed, even if the same job was claimed again since: a worker that lost its lease
// can never complete a job a second time. Every output is written under a temporary name (the
// download in partial/, derived images next to their final name) and renamed into place before this
// rename, so no reader ever sees half a file. None of them is fsynced one by one: the watcher syncs
// every job finished since its last look in one syncfs every second, and after a reboot the jobs
// finished since the last sync whose outputs the disk did not keep go back to the queue (see
// Durability.swift). The completion rename itself is not fsynced either: undone by a power loss, it
// means a redo. A progress sidecar the owner wrote meanwhile is deleted after the rename (a crash
// may leave it: the record on the job file wins).
//
// Without RENAME_NOREPLACE. FUSE (so GlusterFS) and NFS refuse the flag (EINVAL); a process tries it
// as it opens a spool that statfs says is shared, before any claim (RenameProbe.swift), and remembers
// any refusal (FarmSystem's NoReplace.swift). Completion is then link(2) of the active file
// to done/<list>/<job>, exclusive like the flag (EEXIST, on every host's mount), and unlink(2) of the
// active name. A reclaimer may rename the active file back to the queue between the two: the job was
// completed at the link, by the owner it had then, and the queued file is a second name of the
// finished one. The completer removes that name from queue/0/r; whoever claims it first otherwise (it
// is never in a fresh batch) sees a job file with two links whose other name is in done/ or failed/,
// drops its own name and moves on before any download, so the job is completed once and its outputs
// are left alone (completion checks the same first). Only names that are second names are ever
// removed: nothing is lost. Every other move stays one step: a hand-back or reclaim is a plain
// rename (a link would make the job claimable while its old owner's name still let it complete), and
// a new batch or a file set aside goes to a fresh name that nobody else can be making.
//
// Hosts. Several hosts may share the spool through a shared file system (SPEC §11), each running its
// own supervisor, workers and a watcher; a pid names a process on its own host only. Every process
// registers with its host, and only its host signals it, counts it, or releases its jobs when it dies
// (HostControl.swift); other hosts know its claims by their lease, and its liveness by its registry
// lock, a hint only (a host cut off keeps its locks in the others' eyes for a while). One watcher
// serves the whole spool, the others stand by (ServingWatcher.swift). stop, pause, resume and reset
// act on every host.
//
// Power cuts (SPEC §17): which write is made durable by which sync, step by step. What a command
// acknowledges (exits 0 after) is on disk before it exits; what the farm does on its own may be undone by a
// power cut, and every such undo is a redo, never a loss:
//   add         job files and list records staged in tmp/stage-*  <- one syncfs of the stage;
//               the rename of the stage to queue/<batch> (the commit)  <- fsync of queue/;
//               the list records' renames into lists/  <- fsync of lists/ (recovery redoes them otherwise).
//   item add/rm/move, sync (FarmLists)  the edit's journal, the table's new lines and a new job file  <- fsync
//               of each; the order, renamed into place (the commit)  <- fsync of the order, then of lists/.
//   scale, start's settings, limit (`replace`)  the file staged in tmp/  <- fdatasync before its rename into
//               control/; the rename  <- fsync of control/ (`writeWhole(durable:)`).
//   pause, resume  control/paused created or removed  <- fsync of control/ (`setFlag`).
//   claim, lease renewal, hand-back, reclaim  not synced: undone, the job is queued or active again with an
//               expired lease, and reclaimed.
//   complete    outputs and the rename into done/ not synced: the watcher's syncfs every second makes
//               every completion before it durable, then the mark control/synced (not synced: an older mark
//               only widens the check); after a reboot, done jobs since the mark whose outputs the disk did
//               not keep go back to the queue (Durability.swift).
//   sync marks, host holds, sidecars, metrics, status  not synced: rebuilt or harmless when lost.
//
// Hold (Hold.swift). `hold(list:)` renames every queued and claimed job of one list into its held batch
// `queue/l<list>/s`, which claimers skip; a claim taken so is lost to its owner as after a reclaim (its
// renewal or completion finds the name gone; its partial bytes stay). `release(list:)` renames them to
// the batch of handed-back jobs. Held jobs are queued jobs: every count and check sees them so.
//
// Corruption. A job file that does not parse, or a name that does not belong where it is, is
// renamed into corrupt/ with a line in log/farm.log; the caller moves on to the next job.
//
// The concerns built on this protocol, each a target that opens with its own header, and each using the
// moves above (claim, release, complete, `moveToQueue`, set aside) for every move of a job:
//
//     FarmLists   lists/<list>.order, .lock, .edit, .pages: edits, order, reload, retry, pages, sync's replacement
//     FarmDedup   blobs/, urls/, partial/u<key>: download once (SPEC §7)
//     FarmHosts   hosts/, holds/, queue/h<host>: per-host slots, buckets, holds and parked jobs (SPEC §10)
//     FarmFsck    every invariant of them all, checked and repaired (SPEC §10)
//
// What binds them: a job is in exactly one of queue/, active/, done/, failed/ at every instant; its
// outputs exist only while it is done (or failed with its download kept); everything written is written
// under a temporary name and renamed into place; nothing is ever deleted that a live process may still
// rename (a claim, a locked stage, a held partial), and a damaged file is set aside in corrupt/.
import FarmSystem
import SystemPackage

/// A spool directory: the paths of its parts and the operations of the protocol above.
///
/// Every path of the spool is named here (and in the extensions of `Spool` in the folders beside this file:
/// Protocol, Records, Desired, Registry): no other module builds one. A value type holding the root path and the identity of the root directory it
/// opened: any process or thread may make one and use it.
public struct Spool: Sendable {
    /// Jobs per queue shard: small enough that reading a shard's first names is cheap on any file
    /// system, large enough that a million jobs make only about a thousand shards.
    public static let shardSize = 1024

    public private(set) var root: String
    /// The device and inode of the root as opened: a root that no longer has them was removed (or
    /// replaced) under the farm (see `isGone`).
    private var identity: (device: DeviceID, inode: Inode)?

    public var queue: String { root + "/queue" }
    public var active: String { root + "/active" }
    public var done: String { root + "/done" }
    public var failed: String { root + "/failed" }
    public var lists: String { root + "/lists" }
    public var progress: String { root + "/progress" }
    /// Partial downloads, `partial/<job>`: kept across reclaims so the next owner resumes by range.
    public var partial: String { root + "/partial" }
    public var files: String { root + "/files" }
    public var control: String { root + "/control" }
    /// Live processes, `procs/<role>.<pid>.<nonce>.<host>`, each locked by its process (see Registry).
    public var procs: String { root + "/procs" }
    /// Counters of farm processes, `metrics/<role>.<pid>.<nonce>.<host>.json` and those of the gone (FarmMetrics).
    public var metrics: String { root + "/metrics" }
    /// The watcher's aggregated status documents.
    public var status: String { root + "/status" }
    public var tmp: String { root + "/tmp" }
    public var corrupt: String { root + "/corrupt" }
    public var logDirectory: String { root + "/log" }
    public var logFile: String { root + "/log/farm.log" }
    /// Per-host transfer slots and token buckets (FarmHosts).
    public var hosts: String { root + "/hosts" }
    /// Hosts held after a 429 or 503 with Retry-After (FarmHosts).
    public var holdsDirectory: String { root + "/holds" }
    /// Stored bytes, `blobs/<slot>` (FarmDedup).
    public var blobs: String { root + "/blobs" }
    /// The valid result of each URL, `urls/<key>` (FarmDedup).
    public var urls: String { root + "/urls" }
    var marker: String { root + "/.farm-spool" }

    /// The entry `names` (a name, or a path of names below it) of the spool's folder `folder`, as in
    /// `spool.path(\.active, name)` or `spool.path(\.queue, batch, shard, job)`: the one way other modules
    /// name what a walk of a folder found, so that every path of the spool is built here.
    public func path(_ folder: KeyPath<Spool, String>, _ names: String...) -> String {
        var path = self[keyPath: folder]
        path.reserveCapacity(names.reduce(path.utf8.count) { $0 + 1 + $1.utf8.count })
        for name in names {
            path += "/"
            path += name
        }
        return path
    }

    /// A shard of a new batch of the queue, claimed after every batch before it: where a job added at a
    /// list's end goes, as if added with the list.
    public func freshShard() -> String { path(\.queue, BatchName.fresh(), BatchName.shard(0)) }

    /// The queue shard that puts a resource moved or added at `position` ahead of its list's other queued
    /// resources: in the batch of handed-back jobs, which is claimed first, ahead of them too (shards sort
    /// before `r`), lower positions first and, at one position, the latest edit first.
    public func priorityShard(_ position: Int) -> String {
        let digits = String(position), age = String(UInt64(9_999_999_999_999_999) - UInt64(Clock.wall() * 1e6))
        return path(\.queue, Self.returnedBatch, "p" + String(repeating: "0", count: max(0, 10 - digits.count))
            + digits + "-" + age)
    }

    /// Whether `path` is an entry of `folder` (or below one).
    public func contains(_ path: String, in folder: KeyPath<Spool, String>) -> Bool {
        path.hasPrefix(self[keyPath: folder] + "/")
    }

    /// The watcher's whole-spool summary, `status/summary.json`, and its name in status/.
    public var summaryFile: String { status + "/" + Self.summaryFileName }
    public static let summaryFileName = "summary.json"

    /// A reader's request for the summary as of its moment, `status/ask.<nonce>`, and the watcher's answer,
    /// `status/answer.<nonce>.json` (see `StatusReader.current` in FarmStatus).
    public func statusAskPath(_ nonce: String) -> String { status + "/" + Self.statusAskPrefix + nonce }
    public func statusAnswerPath(_ nonce: String) -> String {
        status + "/" + Self.statusAnswerPrefix + nonce + ".json"
    }
    public static let statusAskPrefix = "ask.", statusAnswerPrefix = "answer."
    /// The nonce of an ask's name in status/; nil for any other name.
    public static func statusAsk(ofName name: String) -> String? {
        name.hasPrefix(statusAskPrefix) ? String(name.dropFirst(statusAskPrefix.count)) : nil
    }

    /// A fresh path in tmp/ for a file a process stages (`<prefix>-<pid>.<host tag>-<nonce>`): the spool's
    /// own scratch space, on the spool's file system. The name says whose it is, so what a process killed
    /// half-way leaves is found and removed by its host's supervisor (`sweepScratch`), by `farm stop` and
    /// by `farm fsck --repair`, on whichever host it was made.
    /// `nonce`: 16 hex digits, `Nonce`'s unless the caller may not take its lock (see RenameProbe.swift).
    public func scratchPath(_ prefix: String, nonce: String = Nonce.nextHex()) -> String {
        tmp + "/" + prefix + "-" + String(Processes.current()) + "." + FarmHost.localTag + "-" + nonce
    }

    /// Writes `bytes` to `path` whole or not at all: staged in tmp/ under a scratch name (so what a writer
    /// killed half-way leaves is known for garbage once it is gone), then renamed into place. `durable`: on
    /// disk before this returns, the bytes synced before the rename and the folder of `path` after it.
    public func writeWhole(_ bytes: some Collection<UInt8>, to path: String, durable: Bool = false) throws(Errno) {
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        try AtomicFile.write(bytes, to: path, stagedAt: scratchPath(name), sync: durable)
        if durable { try FileSystem.syncDirectory(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])) }
    }

    /// Temporaries whose names carry no writer's pid are left alone until this old: no writer of farm
    /// keeps one open nearly that long.
    public static let scratchAge = 60.0

    /// Who made the scratch file named `name` (see `scratchPath`); nil when `name` is not such a name.
    package static func scratchWriter(ofName name: String) -> ScratchWriter? {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts.last!.utf8.count == 16 else { return nil }
        let writer = parts[parts.count - 2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let pid = Int32(writer[0]), pid > 0 else { return nil }
        // Without a host tag: an older farm's name, which counts as this host's (as an older claim does).
        let tag = writer.count == 2 ? String(writer[1]) : nil
        return ScratchWriter(pid: pid, isLocal: tag == nil || tag == FarmHost.localTag)
    }

    /// The process that made a scratch file: its pid means something only where `isLocal`.
    package struct ScratchWriter: Equatable {
        package let pid: Int32
        package let isLocal: Bool

        /// Whether it is surely gone: a process of this host that no longer exists.
        package var isGone: Bool { isLocal && !Processes.mayExist(pid) }
    }

    /// Where the partial download of `job` is: `partial/<job>`.
    public func partialPath(_ job: JobName) -> String { partial + "/" + job.raw }

    /// The folder of the outputs of list `id`: `files/<list>/`.
    public func outputDirectory(ofList id: String) -> String { files + "/" + id }

    /// What the outputs of `job` are named from: `files/<list>/<index>`, to which each output adds its own
    /// suffix (`.jpg`, `.page1.png`, `.thumb.png`, `.unzipped/`).
    public func outputBase(_ job: JobName) -> String { outputDirectory(ofList: job.list) + "/" + String(job.index) }

    /// The queue batch that holds jobs handed back (released or reclaimed); it sorts first.
    package static let returnedBatch = "0"
    var returnedShard: String { queue + "/" + Self.returnedBatch + "/r" }

    static let subdirectories = [
        "queue", "active", "done", "failed", "lists", "progress", "partial", "files", "control", "procs", "status",
        "tmp", "corrupt", "log", "hosts", "holds", "metrics", "blobs", "urls", "hooks",
    ]

    /// Opens the spool at `root`, creating it (mode 0700) when `create` is set and it does not exist.
    /// Refuses a directory that holds other things and is not a spool, so no command ever writes into
    /// (or resets) a directory that was not made by farm.
    public init(root: String, create: Bool = true) throws(SpoolError) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        try open(create: create)
        // Outputs and sidecars name absolute paths, whatever directory the user typed it from.
        if let resolved = try? FileSystem.realPath(self.root) { self.root = resolved }
        if let st = try? FileSystem.stat(self.root) { identity = (st.deviceID, st.inode) }
        learnRenames()
    }

    /// Whether the spool directory was removed (or replaced by another) since this value opened it, or
    /// is being removed (its `.farm-spool` marker is gone, as `rm -rf` takes it before the folders):
    /// a stat of the root and one of the marker. A farm process whose spool is gone has nothing left to
    /// do and stops, so only a root or marker that is not there counts: any other failure of a stat
    /// says nothing about it.
    public var isGone: Bool {
        guard let identity else { return false }
        do {
            let st = try FileSystem.stat(root)
            if st.deviceID != identity.device || st.inode != identity.inode { return true }
            _ = try FileSystem.stat(marker)
            return false
        } catch {
            return error == .noSuchFileOrDirectory || error == .notDirectory
        }
    }

    private func open(create: Bool) throws(SpoolError) {
        if FileSystem.exists(marker) {
            try makeSubdirectories()
            return
        }
        guard FileSystem.exists(self.root) else {
            guard create else { throw SpoolError(.notASpool, "no spool at \(self.root)") }
            do { try FileSystem.mkdir(self.root, mode: 0o700) } catch where error == .fileExists {} catch {
                throw SpoolError(.io, "cannot create the spool \(self.root)", cause: error)
            }
            try initialize()
            return
        }
        let entries: [String]
        do { entries = try FileSystem.listDirectory(self.root) } catch {
            throw SpoolError(.notASpool, "\(self.root) is not a readable directory", cause: error)
        }
        guard create, entries.allSatisfy({ $0.hasPrefix(".") }) else {
            throw SpoolError(.notASpool, "\(self.root) is not a farm spool (it has no .farm-spool); "
                + "point --spool at a new or empty directory")
        }
        try initialize()
    }

    /// The marker first, then the folders: a crash (or a power cut) half-way leaves a marked spool, which
    /// the next open completes (`makeSubdirectories`), never folders without a marker, which every command
    /// would refuse as someone else's directory. A file system that journals its metadata in order (ext4)
    /// keeps no folder made after the marker without the marker.
    private func initialize() throws(SpoolError) {
        try? FileSystem.chmod(root, 0o700)
        do {
            try FileSystem.createFile(marker, Array("farm spool v1\n".utf8), sync: true)
        } catch where error == .fileExists {
        } catch { throw SpoolError(.io, "cannot write \(marker)", cause: error) }
        Failpoint.hit("spool.marked")
        try makeSubdirectories()
    }

    func makeSubdirectories() throws(SpoolError) {
        for name in Self.subdirectories {
            do { try FileSystem.ensureDirectory(root + "/" + name) } catch {
                throw SpoolError(.io, "cannot create \(root)/\(name)", cause: error)
            }
        }
    }

    package func activePath(_ claim: JobName, _ owner: Owner) -> String { active + "/" + ActiveName.raw(claim, owner) }

    /// Where the jobs of `list` that ended with `outcome` are: done/<list> or failed/<list>.
    public func finishedDirectory(_ list: String, _ outcome: Outcome) -> String {
        (outcome == .done ? done : failed) + "/" + list
    }

    /// Where job `job` is once it ended with `outcome`.
    public func finishedPath(_ job: JobName, _ outcome: Outcome) -> String {
        finishedDirectory(job.list, outcome) + "/" + job.raw
    }
}
