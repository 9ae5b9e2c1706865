import FarmJSON
import FarmSystem
import SystemPackage

/// The farm's desired state, `control/desired.json`: written by `start` and `scale`, applied by the
/// supervisors. Replaced by rename, so a reader sees the old state or the new one. It is the whole
/// spool's, but for the workers: each host runs its own number (HostControl.swift).
public struct Desired: Equatable, Sendable {
    public static let workerRange = 1...64
    public static let transferRange = 1...256

    /// How many workers should run on a host that never set its own number: the last number set on
    /// any host (an older farm's spool has only this one).
    public var workers: Int = 4
    /// How many transfers each worker runs at once (SPEC §13), on every host.
    public var transfers: Int = Desired.defaultTransfers
    /// One, so that `farm start --workers N` means N downloads at once, as the app's concurrency slider
    /// does (SPEC §13): a user who picks N to be gentle with a server gets N. More is `--transfers`.
    public static let defaultTransfers = 1

    /// The concurrency `workers` of `transfers` each make, as every view says it first (SPEC §13):
    /// "6 at once: 6 workers × 1".
    public static func atOnce(workers: Int, transfers: Int) -> String {
        "\(workers * transfers) at once: \(workers) worker\(workers == 1 ? "" : "s") × \(transfers)"
    }
    /// Seconds a claim stays its owner's without renewal.
    public var lease: Double = 10
    /// The most one download may weigh, in bytes.
    public var maxSize: Int = 1 << 30
    /// False (`farm start --no-convert`, for users who want the files alone): download and complete,
    /// no display image and no thumbnail.
    public var convert: Bool = true
    /// Bytes the spool's file system keeps free: below them no new transfer starts (`DiskRoom`). nil:
    /// the default, 1 GiB or 5 % of the file system, whichever is smaller; 0: no limit.
    public var minFree: Int?
    /// Per-host limits across the farm; none by default.
    public var hostLimits = HostLimits()
    /// The CA certificates (PEM, absolute path) HTTPS servers are verified against; nil: the system's.
    public var caFile: String?
    /// `farm start --poll`: the watcher and the views poll the spool even where its file system does not
    /// call for it (see FarmChangeFeed's `Polling`).
    public var poll = false

    public init(workers: Int = 4, lease: Double = 10, maxSize: Int = 1 << 30, convert: Bool = true,
                minFree: Int? = nil, hostLimits: HostLimits = HostLimits()) {
        self.workers = workers
        self.lease = lease
        self.maxSize = maxSize
        self.convert = convert
        self.minFree = minFree
        self.hostLimits = hostLimits
    }
}

/// What `farm start` asks to change of the desired state (each nil keeps the last value), and
/// `farm scale`'s transfers. The workers are set per host (`setDesiredWorkers`), the rest for the spool.
public struct DesiredChange: Sendable, Equatable {
    public var workers: Int?
    public var transfers: Int?
    public var lease: Double?
    public var maxSize: Int?
    public var convert: Bool?
    /// 0: no limit.
    public var minFree: Int?
    /// 0 lifts a limit.
    public var perHost: Int?
    public var ratePerHost: Double?
    /// "" goes back to the system's certificates.
    public var caFile: String?
    public var poll: Bool?

    public init(workers: Int? = nil, transfers: Int? = nil, lease: Double? = nil, maxSize: Int? = nil,
                convert: Bool? = nil, minFree: Int? = nil, perHost: Int? = nil, ratePerHost: Double? = nil,
                caFile: String? = nil, poll: Bool? = nil) {
        self.workers = workers
        self.transfers = transfers
        self.lease = lease
        self.maxSize = maxSize
        self.convert = convert
        self.minFree = minFree
        self.perHost = perHost
        self.ratePerHost = ratePerHost
        self.caFile = caFile
        self.poll = poll
    }

    /// `desired` with this change made (but the workers).
    public func applied(to desired: Desired) -> Desired {
        var desired = desired
        if let transfers { desired.transfers = transfers }
        if let lease { desired.lease = lease }
        if let maxSize { desired.maxSize = maxSize }
        if let convert { desired.convert = convert }
        if let poll { desired.poll = poll }
        if let minFree { desired.minFree = minFree }
        if let caFile { desired.caFile = caFile.isEmpty ? nil : caFile }
        if let perHost { desired.hostLimits.perHost = perHost > 0 ? perHost : nil }
        if let ratePerHost { desired.hostLimits.ratePerHost = ratePerHost > 0 ? ratePerHost : nil }
        return desired
    }
}

// Hand-written, not a JSONRecord: `hostLimits` is written flat (`perHost`, `ratePerHost`), `poll` only when
// set and `transfers` only off its default.
extension Desired: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        if let caFile { json.member("caFile", caFile) }
        json.member("convert", convert)
        json.member("lease", lease)
        json.member("maxSize", maxSize)
        // Left out when nil, as the other records do: a farm that never set it writes what it always wrote.
        if let minFree { json.member("minFree", minFree) }
        if let perHost = hostLimits.perHost { json.member("perHost", perHost) }
        if poll { json.member("poll", poll) }
        if let rate = hostLimits.ratePerHost { json.member("ratePerHost", rate) }
        if transfers != Self.defaultTransfers { json.member("transfers", transfers) }
        json.member("workers", workers)
        json.endObject()
    }
}

/// A member missing from an older desired.json keeps its default instead of voiding the rest.
extension Desired: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        let defaults = Desired()
        workers = try json.decodeIfPresent("workers") ?? defaults.workers
        transfers = try json.decodeIfPresent("transfers") ?? defaults.transfers
        lease = try json.decodeIfPresent("lease") ?? defaults.lease
        maxSize = try json.decodeIfPresent("maxSize") ?? defaults.maxSize
        convert = try json.decodeIfPresent("convert") ?? defaults.convert
        hostLimits = HostLimits(perHost: try json.decodeIfPresent("perHost"),
                                ratePerHost: try json.decodeIfPresent("ratePerHost"))
        minFree = try json.decodeIfPresent("minFree")
        caFile = try json.decodeIfPresent("caFile")
        poll = try json.decodeIfPresent("poll") ?? defaults.poll
    }
}

/// The files of control/, by name.
public enum ControlFile: String, Sendable, CaseIterable {
    /// The desired state (`Desired`).
    case desired = "desired.json"
    /// Present: every transfer is paused.
    case paused
    /// Present: the farm is being stopped; a dead supervisor is not replaced.
    case stopping
    /// Held (flock) by the one watcher that serves the spool; the others wait for it (standby).
    case watcherLock = "watcher.lock"
    /// Held (flock) by the one `farm add` staging now.
    case addLock = "add.lock"
    /// The last bulk sync of finished jobs (Durability.swift), and its lock.
    case synced, syncedLock = "synced.lock"
    /// Held (flock) by the one follower of paged lists (FarmPages).
    case followerLock = "follower.lock"

    /// Whether the status shows what this file says (the desired workers, the paused flag): a change to
    /// any other (such as the supervisor lock every process probes) only causes re-reads.
    public var isShownInStatus: Bool { self == .desired || self == .paused }

    /// Whether the status shows what the file of control/ named `name` says: one above, a host's
    /// desired workers, or a host's bandwidth cap.
    public static func isShownInStatus(_ name: String) -> Bool {
        ControlFile(rawValue: name)?.isShownInStatus ?? (Spool.host(ofDesiredName: name) != nil || Spool.isLimitName(name))
    }
}

extension Spool {
    /// The path of control file `file`.
    public func controlPath(_ file: ControlFile) -> String { control + "/" + file.rawValue }

    var desiredPath: String { controlPath(.desired) }
    var pausedPath: String { controlPath(.paused) }
    var stoppingPath: String { controlPath(.stopping) }
    /// Held (flock) by the `farm add` that stages now, so two adds of one list never both enqueue it.
    public var addLock: String { controlPath(.addLock) }

    /// The desired state, or the defaults when none was ever written (or it does not parse).
    public func desired() -> Desired {
        guard let bytes = try? FileSystem.readFile(desiredPath),
              let desired = JSON.decode(Desired.self, from: bytes) else { return Desired() }
        return desired
    }

    public func setDesired(_ desired: Desired) throws(SpoolError) {
        try replace(desiredPath, with: JSON.encode(desired))
    }

    /// `control/paused` present means every transfer is paused.
    public var isPaused: Bool { FileSystem.exists(pausedPath) }

    public func setPaused(_ paused: Bool) throws(SpoolError) {
        do { try Self.setFlag(pausedPath, paused) } catch {
            throw SpoolError(.io, "cannot \(paused ? "pause" : "resume") the farm", cause: error)
        }
    }

    /// Set while `stop` (or `reset`) runs and until the next `start`: a dead supervisor is then not
    /// replaced by the survivors.
    public var isStopping: Bool { FileSystem.exists(stoppingPath) }

    public func setStopping(_ stopping: Bool) throws(SpoolError) {
        do { try Self.setFlag(stoppingPath, stopping) } catch {
            throw SpoolError(.io, "cannot mark the farm as \(stopping ? "stopping" : "running")", cause: error)
        }
    }

    /// Creates the empty control file at `path`, or removes it: its presence is the state. Either is
    /// done when it is so already, and on disk before this returns (control/ fsynced: `farm pause` that
    /// exited 0 survives a power cut, SPEC §17).
    private static func setFlag(_ path: String, _ present: Bool) throws(Errno) {
        if present {
            do { try FileSystem.createFile(path, []) } catch where error == .fileExists {}
        } else {
            do { try FileSystem.unlink(path) } catch where error == .noSuchFileOrDirectory {}
        }
        try FileSystem.syncDirectory(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
    }

    /// Writes `bytes` to `path` through a temporary file in tmp/ and a rename: readers never see half of it.
    /// `durable` (the default: what a command writes is acknowledged when it exits, SPEC §17): synced before
    /// this returns.
    package func replace(_ path: String, with bytes: [UInt8], durable: Bool = true) throws(SpoolError) {
        do { try writeWhole(bytes, to: path, durable: durable) } catch {
            throw SpoolError(.io, "cannot write \(path)", cause: error)
        }
    }
}
