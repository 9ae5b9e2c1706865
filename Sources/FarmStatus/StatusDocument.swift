import FarmDesired
import FarmJSON
import FarmSpool

/// The whole-spool status of SPEC §4: every list with its counts, the workers and the paused flag, with
/// why it is paused and the room on the spool's disk (SPEC §10).
///
/// A value: built by a scan (`StatusScan.summary`) or by the watcher, which writes it to
/// `status/summary.json` (`SummaryFile`); read by `farm status`, `farm wait`, `top` and `serve`.
/// Its size grows with the number of lists, never with the number of resources: the resources of a
/// list are only in the per-list view (`ListView`).
public struct StatusDocument: Equatable, Sendable {
    /// When this document was made (ISO 8601, UTC, milliseconds).
    public var updated: String
    /// No new transfer starts: `pausedBy` says why.
    public var paused: Bool
    /// Who paused the farm (nil when it is not paused).
    public var pausedBy: PausedBy?
    /// The room on the spool's file system against the minimum kept free; nil when it cannot be read.
    public var disk: DiskRoom?
    public var workers: Workers
    /// In natural order of their names ("Set 2.json" before "Set 10.json").
    public var lists: [ListStatus]

    /// `pausedBy` defaults to the user's pause when `paused` is set (a document without the disk guard).
    public init(updated: String, paused: Bool, pausedBy: PausedBy? = nil, disk: DiskRoom? = nil, workers: Workers,
                lists: [ListStatus]) {
        self.updated = updated
        self.paused = paused
        self.pausedBy = paused ? pausedBy ?? .user : nil
        self.disk = disk
        self.workers = workers
        self.lists = lists
    }

    /// Every list is Finished (true when there are none).
    public var isFinished: Bool { lists.allSatisfy { $0.state == .finished } }

    /// How many resources ended in `error`, over every list.
    public var failed: Int { lists.reduce(0) { $0 + $1.failed } }

    /// The list with this id, if any.
    public func list(id: String) -> ListStatus? { lists.first { $0.id == id } }
}

/// Why no new transfer starts: `farm pause` (the user's, until `farm resume`), or too little room on
/// the spool's disk (`DiskRoom`: until space is freed; the user's pause wins when both hold).
public enum PausedBy: String, Sendable, JSONReadable {
    case user, disk
}

/// How many workers should run (control/) and how many do (procs/), summed over the hosts of the spool
/// (`Spool.workerCounts`), the transfers each runs at once (`Desired.transfers`, SPEC §13), and the
/// bandwidth cap of the host that made the status (`farm limit`, SPEC §12; nil: none).
public struct Workers: Equatable, Sendable {
    public var desired: Int
    public var running: Int
    public var transfers: Int
    public var limitRate: Int?

    public init(desired: Int, running: Int, transfers: Int = Desired.defaultTransfers, limitRate: Int? = nil) {
        self.desired = desired
        self.running = running
        self.transfers = transfers
        self.limitRate = limitRate
    }

    /// The concurrency in force (SPEC §13): how many resources the running workers download at once at
    /// most. The one number every view shows first.
    public var atOnce: Int { running * transfers }

    /// "6 at once: 6 workers × 1", and "(8 wanted)" while the running workers are not yet the wanted ones.
    public var concurrency: String {
        let phrase = Desired.atOnce(workers: running, transfers: transfers)
        return running == desired ? phrase : phrase + " (\(desired) wanted)"
    }
}

extension StatusDocument: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("disk", disk)
        json.member("lists", lists)
        json.member("paused", paused)
        json.member("pausedBy", pausedBy?.rawValue)
        json.member("updated", updated)
        json.member("workers", workers)
        json.endObject()
    }
}

extension StatusDocument: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        self.init(updated: try json.decode("updated"), paused: try json.decode("paused"),
                  pausedBy: try json.decodeIfPresent("pausedBy"), disk: try json.decodeIfPresent("disk"),
                  workers: try json.decode("workers"), lists: try json.decode("lists"))
    }
}

extension Workers: JSONRecord {
    private enum CodingKeys: String, CodingKey { case desired, running, transfers, limitRate, atOnce }

    /// `atOnce` is written for scripts and the web page, and derived again when read.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(atOnce, forKey: .atOnce)
        try container.encode(desired, forKey: .desired)
        try container.encodeIfPresent(limitRate, forKey: .limitRate)
        try container.encode(running, forKey: .running)
        try container.encode(transfers, forKey: .transfers)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(desired: try container.decode(Int.self, forKey: .desired),
                  running: try container.decode(Int.self, forKey: .running),
                  transfers: try container.decode(Int.self, forKey: .transfers),
                  limitRate: try container.decodeIfPresent(Int.self, forKey: .limitRate))
    }
}
