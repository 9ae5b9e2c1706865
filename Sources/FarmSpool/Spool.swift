// The farm spool protocol
// =======================
//
// Every farm process (coordinator, supervisor, workers, watcher) coordinates only through this
// directory. Any of them can die at any instant, with SIGKILL; the rules below make every such
// death cost at most a redo, never a lost or doubled job.
//
// Layout (the spool itself is mode 0700):
//
//     .farm-spool                    marker: this directory is a spool (reset and the CLI check it)
//     queue/<batch>/<shard>/<job>    jobs waiting to be claimed
//     active/<job>@<owner>           claimed jobs; the file's ctime is its owner's lease
//     done/<list>/<job>              jobs completed for good, each with its outcome record (an xattr)
//     failed/<list>/<job>            jobs that failed for good, likewise
//     lists/<list>.json              list records, published only once all their jobs are queued
//     lists/<list>.resources         each list's resource table: the job records by job number
//     lists/<list>.order             an edited list's order; .lock, .edit and .*.new: its edits' (see "Edit")
//     lists/<list>.pages             a paged list's page log while it is followed; .paged once done (see "Pages")
//     progress/<job>.json            the owner's progress sidecar (Sidecar), replaced by rename; only
//                                    for jobs longer than a tick or stored and waiting for their owner's
//                                    conversion (which may follow its later transfers), deleted once the job ends
//     partial/u<key>                 bytes of a URL downloaded so far; the writer holds an flock on it,
//                                    which is the URL's lock (see "Once"); partial/<job>: a job's own
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
//     hosts/<host>/                  per-host transfer slots and token bucket (HostGate.swift)
//     holds/<host>                   a host held after a 429 or 503 with Retry-After (HostGate.swift)
//     queue/h<host>/p/<job>          queued jobs parked until their host lets a worker in (HostGate.swift)
//     blobs/<sha256>                 stored bytes: one more name of a downloaded file (see "Once")
//     urls/<key>                     the valid result of one URL (<key>: its SHA-256) (see "Once")
//
// Names. A <job> is `<list>.<n>`: the list id (16 lowercase hex digits) and the job's number in
// the list, which is the resource's line in the list's resource table and never changes; it is the
// resource's 0-based index until the list is edited (see "Edit"). A job file holds one line of JSON (`JobRecord`: the URL and resource id);
// it is never modified after it is written, only renamed. An <owner> is `<pid>-<nonce>-<tag>`, fresh
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
// Claim (Claimer). A worker lists queue/ (a few batches), takes the lowest batch and its lowest
// shard (the shard list is cached between claims), reads one getdents batch of names from it (never
// the whole directory), and renames one to `active/<job>@<owner>`. While it drains a batch it only
// checks that queue/0 is absent instead of listing queue/ again: a new batch sorts after its own.
// The rename is the claim: exactly one contender wins, the losers get ENOENT and pick again. Each
// worker walks the names from a random place and jumps elsewhere at random when it loses one, which
// keeps concurrent workers off each other's names. The rename also sets the file's ctime, which
// starts the lease. Empty shards and batches are removed with rmdir(2), which fails harmlessly when a job
// has just arrived. A claim is not fsynced: if a power loss undoes it, the job is simply queued.
//
// Lease. The owner renews by touching `active/<job>@<owner>` (utimensat sets ctime) every
// lease/4. A worker may own several claims: the job it transfers and the jobs whose downloads it stored
// and its converter has not completed yet; each is renewed, and lost, on its own. A renewal that finds the name gone (ENOENT) means the lease was lost: the owner stops.
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
// every job finished since its last look in one syncfs every few seconds, and after a reboot the jobs
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
// Edit (ListEdit.swift). `farm item add|rm|move` changes a list under its flock `lists/<list>.lock`.
// The list's order, `lists/<list>.order` (ListOrder: the job number at each index; absent, the order is
// 0..<total), is replaced by one rename: that is the commit point, and an index is always the position
// in the committed order, so indexes have no gap. An add appends its record to the resource table
// (a line past the committed order is unused), queues its job (at the end: a new batch; elsewhere:
// ahead, in batch 0) and commits. A removal commits, then purges the job wherever it is (a claim taken
// away ends its owner's transfer at its next renewal, and an owner that lost a removed job deletes what
// it stored) with its outputs. Before either, the job number goes to the journal `lists/<list>.edit`:
// an editor killed half-way leaves it, and the next editor of the list or `recover()` purges the job of
// a number the committed order does not hold, so every edit ends whole or undone. A move commits, then
// moves a queued job ahead when it moved ahead.
//
// Hosts. Several hosts may share the spool through a shared file system (SPEC §11), each running its
// own supervisor, workers and a watcher; a pid names a process on its own host only. Every process
// registers with its host, and only its host signals it, counts it, or releases its jobs when it dies
// (HostControl.swift); other hosts know its claims by their lease, and its liveness by its registry
// lock, a hint only (a host cut off keeps its locks in the others' eyes for a while). One watcher
// serves the whole spool, the others stand by (ServingWatcher.swift). stop, pause, resume and reset
// act on every host.
//
// Pages (PageLog.swift, PageAppend.swift; the follower is FarmPages). A list read from a paged JSON API
// is added with no resource: its record (which holds the source: first URL and pointers), an empty
// resource table and its page log, `lists/<list>.pages`, whose first line names the first page. The
// log gains one line (`PageState`, JSON) per page added; its last whole line is the list's state: the
// next page's URL, pages fetched, done, error, title and cover, and the table's lines and bytes as that
// page left them. One process follows the pages (the follower, `control/follower.lock`). A page is
// fetched with no lock held, then added as an edit under the list's edit lock: the journal gets the
// range `N-M` of job numbers it adds, their records are appended to the table, their jobs queued as a
// batch (as an add stages one), and their numbers appended to the order file (made at the first page
// when the list has none): that append, synced, is the commit point, so a page costs what it adds, not
// what the list holds. Readers of an order take whole numbers only (an append killed mid-write leaves
// a piece of one, cut off by the next). Then the log gains the page's line, synced: that is where the
// next follower resumes. Killed before the commit, the journal undoes the page (see "Edit") and the
// page is fetched again; killed after it, the page is fetched again and adds nothing, because a page
// adds no resource whose id (or URL, without ids) the list's last page or anything added since has.
// The line that ends the list (no next page, a page seen before, an error) is followed by the rename
// of the log to `lists/<list>.paged`: `.pages` names only lists still followed, which is what the
// supervisor looks for. A cover is downloaded by the follower to `files/<list>/cover.<kind>` (and its
// display image beside it), then recorded by a line of its own.
//
// Sync (SyncReplace.swift; the command is FarmSync). `farm sync` brings a list to its source with the edits
// above (each committed on its own, so a rerun does what is left), then revalidates each done resource by
// its outcome record's `etag`/`modified`. A changed one's outputs are made in a stage `tmp/sync-<pid>.<host tag>-<nonce>/`
// under their final names; under the list's edit lock, if the job is still the same done file with the same
// record, each is renamed over the old one (a folder exchanged with it), then the record is replaced, then
// the old outputs the new record does not name are deleted. Killed before the record, the old validators
// make the next sync fetch it again; killed after, the next sync deletes the outputs no record names first.
// A stage whose sync is gone is garbage.
//
// Once (Blobs.swift, URLIndex.swift, URLPartial.swift; the worker's side is FarmWorker's SharedDownload).
// A URL is transferred at most once while its result is valid. A worker that stored a download links it
// as `blobs/<sha256 of the bytes>` (hashed as the transfer wrote them when it wrote them all from byte 0,
// else read back; the bytes then have two names) and writes `urls/<key>` (JSON: url, blob, size, kind,
// validators): the URL's valid result. A URL's first record is written in place (a reader that finds it
// empty or cut reads no record and waits on the lock, which its writer holds); a record that is there
// already is replaced by rename. When a blob of those bytes exists already (another URL, same bytes), the
// download gives way to a name of it (linked as tmp/blob-*, renamed over the partial); a blob of
// another size (cut by a power loss) is replaced by the download instead. A worker that
// claims a job opens (or makes) the URL's partial download `partial/u<key>` and takes its flock without
// waiting: the flock is the URL's lock, and the file the name still holds (its inode checked after the
// lock: a holder renames it away as it stores it) is the URL's one transfer. Then it looks for the URL's
// record (the lock first, so that a new URL costs one look-up, and a holder that published just before
// is seen): when its blob is there, the file serves nobody and goes, the blob is linked as tmp/shared-*
// (copied where a link fails: too many links) and stored as the job's download (a rename), converted as
// usual, and the job completes with `shared` in its outcome record, with no transfer. Otherwise the
// holder names its claim in the attribute `user.farm.holder`, transfers into the file, publishes the
// record before it converts, and stores the file by rename, which ends the URL's partial. The others
// (who found the lock held) look for the record, and while there is none poll the lock
// every 50 ms (their lease renewed, their stop and lost flags looked at). A holder that dies leaves the
// file with its bytes under the same name: whoever takes the lock next resumes them by range, once for
// all who wait. A file that is also a name of stored bytes (a holder that died between publishing and
// storing, or a job handed back after its store, for want of room to convert it or by a worker that stops
// before converting it, which links the output back here, never over another file) is never written: it goes and the taker starts over. A holder whose claim is gone while
// its lock is still held (a stopped process) is waited for a lease at most, then its waiters transfer by
// themselves, each into its own `partial/<job>`, and publish nothing (those bytes go when that transfer
// ends unstored, or, after a kill, with the job's next run). A job marked `fresh` (`farm add
// --fresh`; `farm reload` rewrites its done job file with the mark, staged as tmp/fresh-* and renamed over
// it, before it queues it) skips the record and starts the URL's bytes over unless they are its own
// job's, but takes the lock and publishes like any other. A failed job's partial goes before its
// completion; a resource removed or reloaded takes its URL's partial with it when nobody holds it; a
// served job removes what a holder killed after publishing left; `farm stop` (every process gone)
// sweeps the URL partials nobody can want: empty ones, those of a stored URL, and all of them when no
// job is queued (a holder on a host that was cut off, then killed, while the others transferred by
// themselves leaves one that nothing else would remove).
// Removal: an output is deleted through `removeOutput`, which hashes an output with more than one name to
// find its blob (the blob is the same inode) and collects the blob whose last other name it was (a link
// count of 1), with the record of the output's job's URL when it names that blob (the callers that know
// the URL pass it: item rm, reload, retry, sync, fsck's repairs). Any other record of a collected blob
// names nothing (readers check the blob) until fsck deletes it. A worker linking a blob while it is
// collected keeps the bytes it linked, or finds none and downloads; a record published over a blob
// collected at that moment names nothing until the URL's next transfer replaces it (or fsck). fsck
// reports blobs/ entries with no other name and the records that name them, records whose blob is gone
// (or that do not read, once older than a moment), URL partials nobody holds whose URL is stored or
// wanted by no unfinished job, and what older farms kept:
// the `blobs/<sha256>.urls` lists of URL keys and the lock files `urls/<key>.lock`.
//
// Corruption. A job file that does not parse, or a name that does not belong where it is, is
// renamed into corrupt/ with a line in log/farm.log; the caller moves on to the next job.
//
// Checking. `farm fsck` checks that all of the above holds, and repairs what is safe on a live farm
// (Fsck.swift).
import FarmSystem
import SystemPackage

/// A spool directory: the paths of its parts and the operations of the protocol above.
///
/// Every path of the spool is named here (and in the extensions of `Spool` beside this file): no other
/// module builds one. A value type holding the root path and the identity of the root directory it
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
    var marker: String { root + "/.farm-spool" }

    /// The watcher's whole-spool summary, `status/summary.json`, and its name in status/.
    public var summaryFile: String { status + "/" + Self.summaryFileName }
    public static let summaryFileName = "summary.json"

    /// A fresh path in tmp/ for a file a process stages (`<prefix>-<pid>.<host tag>-<nonce>`): the spool's
    /// own scratch space, on the spool's file system. The name says whose it is, so what a process killed
    /// half-way leaves is found and removed by its host's supervisor (`sweepScratch`), by `farm stop` and
    /// by `farm fsck --repair`, on whichever host it was made.
    /// `nonce`: 16 hex digits, `Nonce`'s unless the caller may not take its lock (see RenameProbe.swift).
    public func scratchPath(_ prefix: String, nonce: String = Nonce.nextHex()) -> String {
        tmp + "/" + prefix + "-" + String(Processes.current()) + "." + FarmHost.localTag + "-" + nonce
    }

    /// Who made the scratch file named `name` (see `scratchPath`); nil when `name` is not such a name.
    static func scratchWriter(ofName name: String) -> ScratchWriter? {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts.last!.utf8.count == 16 else { return nil }
        let writer = parts[parts.count - 2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let pid = Int32(writer[0]), pid > 0 else { return nil }
        // Without a host tag: an older farm's name, which counts as this host's (as an older claim does).
        let tag = writer.count == 2 ? String(writer[1]) : nil
        return ScratchWriter(pid: pid, isLocal: tag == nil || tag == FarmHost.localTag)
    }

    /// The process that made a scratch file: its pid means something only where `isLocal`.
    struct ScratchWriter: Equatable {
        let pid: Int32
        let isLocal: Bool

        /// Whether it is surely gone: a process of this host that no longer exists.
        var isGone: Bool { isLocal && !Processes.mayExist(pid) }
    }

    /// Where the partial download of `job` is: `partial/<job>`.
    public func partialPath(_ job: JobName) -> String { partial + "/" + job.raw }

    /// The folder of the outputs of list `id`: `files/<list>/`.
    public func outputDirectory(ofList id: String) -> String { files + "/" + id }

    /// What the outputs of `job` are named from: `files/<list>/<index>`, to which each output adds its own
    /// suffix (`.jpg`, `.page1.png`, `.thumb.png`, `.unzipped/`).
    public func outputBase(_ job: JobName) -> String { outputDirectory(ofList: job.list) + "/" + String(job.index) }

    /// The queue batch that holds jobs handed back (released or reclaimed); it sorts first.
    static let returnedBatch = "0"
    var returnedShard: String { queue + "/" + Self.returnedBatch + "/r" }

    static let subdirectories = [
        "queue", "active", "done", "failed", "lists", "progress", "partial", "files", "control", "procs", "status",
        "tmp", "corrupt", "log", "hosts", "holds", "metrics", "blobs", "urls",
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

    private func initialize() throws(SpoolError) {
        try? FileSystem.chmod(root, 0o700)
        try makeSubdirectories()
        do {
            try FileSystem.createFile(marker, Array("farm spool v1\n".utf8), sync: true)
        } catch where error == .fileExists {
        } catch { throw SpoolError(.io, "cannot write \(marker)", cause: error) }
    }

    func makeSubdirectories() throws(SpoolError) {
        for name in Self.subdirectories {
            do { try FileSystem.ensureDirectory(root + "/" + name) } catch {
                throw SpoolError(.io, "cannot create \(root)/\(name)", cause: error)
            }
        }
    }

    func activePath(_ claim: JobName, _ owner: Owner) -> String { active + "/" + ActiveName.raw(claim, owner) }

    /// Where the jobs of `list` that ended with `outcome` are: done/<list> or failed/<list>.
    public func finishedDirectory(_ list: String, _ outcome: Outcome) -> String {
        (outcome == .done ? done : failed) + "/" + list
    }

    /// Where job `job` is once it ended with `outcome`.
    public func finishedPath(_ job: JobName, _ outcome: Outcome) -> String {
        finishedDirectory(job.list, outcome) + "/" + job.raw
    }
}
