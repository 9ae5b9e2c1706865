// The spool: a directory every farm process shares, and the only thing they share. Its protocol (layout,
// names, moves, claim, lease, completion, power cuts, hosts) is told in PROTOCOL.md, beside this file:
// read it first. This file names the spool's folders and opens (or makes) a spool.
import FarmSystem
import SystemPackage

/// A spool directory: the paths of its folders and the operations of its job protocol (PROTOCOL.md).
///
/// Every path of the spool is named here, in the extensions of `Spool` in the folders beside this file
/// (Protocol, Records, Hosts, Claims: the moves, claims, leases and completion of jobs), or in one of its
/// parts, each a small value reached from a spool that owns one folder or concern: `control`, `status`,
/// `lists`, `sidecars`, `held`, `scratch`, `durability`, `warc`, `hooks` (and FarmRegistry's `registry`). No
/// other module builds a path. A value type holding the root path and the identity of the root directory it
/// opened: any process or thread may make one and use it.
public struct Spool: Sendable {
    /// Jobs per shard of an add's batch: a shard is also a pack, claimed by one rename (PROTOCOL.md,
    /// "Packs"), so it is as many jobs as one transfer works through before a long one hands the rest back,
    /// and a million jobs make 62,500 shards.
    public static let shardSize = 16

    public private(set) var root: String
    /// The device and inode of the root as opened: a root that no longer has them was removed (or
    /// replaced) under the farm (see `isGone`).
    private var identity: (device: DeviceID, inode: Inode)?

    public var queue: String { root + "/queue" }
    public var active: String { root + "/active" }
    public var done: String { root + "/done" }
    public var failed: String { root + "/failed" }
    public var progress: String { root + "/progress" }
    /// Partial downloads, `partial/<job>`: kept across reclaims so the next owner resumes by range.
    public var partial: String { root + "/partial" }
    public var files: String { root + "/files" }
    /// Live processes, `procs/<role>.<pid>.<nonce>.<host>`, each locked by its process (FarmRegistry).
    public var procs: String { root + "/procs" }
    /// Counters of farm processes, `metrics/<role>.<pid>.<nonce>.<host>.json` and those of the gone (FarmMetrics).
    public var metrics: String { root + "/metrics" }
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

    /// The folders other modules walk, by name: `path(_:_:)` builds their entries' paths.
    public enum Folder: Sendable {
        case active, blobs, done, failed, files, holdsDirectory, hosts, lists, metrics, partial, procs, progress,
             queue, status, tmp, urls
    }

    /// The path of `folder`. A switch, not a key path: a key path given across modules is applied at run
    /// time (`swift_getAtKeyPath`), which was 1 % of a worker's CPU on small files.
    public func path(of folder: Folder) -> String {
        switch folder {
        case .active: active
        case .blobs: blobs
        case .done: done
        case .failed: failed
        case .files: files
        case .holdsDirectory: holdsDirectory
        case .hosts: hosts
        case .lists: root + "/lists"
        case .metrics: metrics
        case .partial: partial
        case .procs: procs
        case .progress: progress
        case .queue: queue
        case .status: root + "/status"
        case .tmp: tmp
        case .urls: urls
        }
    }

    /// The entry `names` (a name, or a path of names below it) of the spool's folder `folder`, as in
    /// `spool.path(.active, name)` or `spool.path(.queue, batch, shard, job)`: the one way other modules
    /// name what a walk of a folder found, so that every path of the spool is built here.
    public func path(_ folder: Folder, _ names: String...) -> String {
        var path = path(of: folder)
        path.reserveCapacity(names.reduce(path.utf8.count) { $0 + 1 + $1.utf8.count })
        for name in names {
            path += "/"
            path += name
        }
        return path
    }

    /// A shard of a new batch of the queue, claimed after every batch before it: where a job added at a
    /// list's end goes, as if added with the list.
    public func freshShard() -> String { path(.queue, BatchName.fresh(), BatchName.shard(0)) }

    /// The queue shard that puts a resource moved or added at `position` ahead of its list's other queued
    /// resources: in the batch of handed-back jobs, which is claimed first, ahead of them too (shards sort
    /// before `r`), lower positions first and, at one position, the latest edit first.
    public func priorityShard(_ position: Int) -> String {
        let digits = String(position), age = String(UInt64(9_999_999_999_999_999) - UInt64(Clock.wall() * 1e6))
        return path(.queue, Self.returnedBatch, "p" + String(repeating: "0", count: max(0, 10 - digits.count))
            + digits + "-" + age)
    }

    /// Whether `path` is an entry of `folder` (or below one).
    public func contains(_ path: String, in folder: Folder) -> Bool {
        path.hasPrefix(self.path(of: folder) + "/")
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

    /// The folders every spool has, made when it opens (so a reset spool still holds them, empty).
    package static let subdirectories = [
        "queue", "active", "done", "failed", "lists", "progress", "partial", "files", "control", "procs", "status",
        "tmp", "corrupt", "log", "hosts", "holds", "metrics", "blobs", "urls", "hooks",
        "hooks/queue", "hooks/active",
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
    /// keeps no folder made after the marker without the marker. The marker is not synced: only its name
    /// is ever looked at, never its bytes, and a sync of its bytes orders no name (bin/crashstates found
    /// nothing without it, under ext4's model or POSIX's); every command that acknowledges syncs after it.
    private func initialize() throws(SpoolError) {
        try? FileSystem.chmod(root, 0o700)
        do {
            try FileSystem.createFile(marker, Array("farm spool v1\n".utf8))
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
    /// Where `claim`'s job file is: `active/<job>@<owner>`, or in its pack, `active/<pack>@<owner>/<job>`.
    public func claimPath(_ claim: Claim) -> String {
        active + "/" + ActiveName.raw(claim.job, claim.owner, pack: claim.pack)
    }
    /// The folder of a claimed pack, `active/<pack>@<owner>`.
    package func packPath(_ pack: String, _ owner: Owner) -> String { active + "/" + pack + "@" + owner.raw }

    /// Where the jobs of `list` that ended with `outcome` are: done/<list> or failed/<list>.
    public func finishedDirectory(_ list: String, _ outcome: Outcome) -> String {
        (outcome == .done ? done : failed) + "/" + list
    }

    /// Where job `job` is once it ended with `outcome`.
    public func finishedPath(_ job: JobName, _ outcome: Outcome) -> String {
        finishedDirectory(job.list, outcome) + "/" + job.raw
    }
}
