import FarmJSON
import FarmSpool
import FarmSystem

/// The farm's desired state, `control/desired.json`: written by `start` and `scale`, applied by the
/// supervisors. Replaced by rename, so a reader sees the old state or the new one. It is the whole
/// spool's, but for the workers: each host runs its own number (HostControl.swift).
public struct Desired: Equatable, Sendable {
    public static let workerRange = 1...64
    public static let transferRange = 1...256

    /// How many workers should run on a host that never set its own number: the last number set on
    /// any host.
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

/// What `write` always writes is required; what it leaves out (see above) is read as its default. farm 0.1.0 is
/// the first release, and its desired.json always held the four required members: no user has one without them.
extension Desired: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        workers = try json.decode("workers")
        transfers = try json.decodeIfPresent("transfers") ?? Self.defaultTransfers
        lease = try json.decode("lease")
        maxSize = try json.decode("maxSize")
        convert = try json.decode("convert")
        hostLimits = HostLimits(perHost: try json.decodeIfPresent("perHost"),
                                ratePerHost: try json.decodeIfPresent("ratePerHost"))
        minFree = try json.decodeIfPresent("minFree")
        caFile = try json.decodeIfPresent("caFile")
        poll = try json.decodeIfPresent("poll") ?? false
    }
}

extension ControlFiles {
    /// The desired state, or the defaults when none was ever written (or it does not parse).
    public func desired() -> Desired {
        guard let bytes = try? FileSystem.readFile(desiredPath),
              let desired = JSON.decode(Desired.self, from: bytes) else { return Desired() }
        return desired
    }

    public func setDesired(_ desired: Desired) throws(SpoolError) {
        try spool.scratch.replace(desiredPath, with: JSON.encode(desired))
    }
}
