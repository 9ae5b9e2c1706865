import FarmJSON
import FarmRegistry
import FarmSpool
import FarmSystem

/// A host's cap on the bandwidth of all its transfers together (SPEC §12), `control/limit.<host>.json`:
/// written by `farm start --limit-rate` and `farm limit`, followed by the host's workers within a second.
struct HostBandwidthLimit: JSONRecord {
    var bytesPerSecond: Int
}

/// A host's own desired state, `control/desired.<host>.json`: its workers (required). Written by that
/// host's `start` and `scale`, read by its supervisor; a value.
struct HostDesired: JSONRecord {
    var workers: Int
}

extension ControlFiles {
    /// How many workers `host` should run: its own number, else the spool's.
    public func desiredWorkers(of host: FarmHost = .local) -> Int {
        hostDesired(host)?.workers ?? desired().workers
    }

    private func hostDesired(_ host: FarmHost) -> HostDesired? {
        guard let bytes = try? FileSystem.readFile(desiredPath(of: host), limit: 4096) else { return nil }
        return JSON.decode(HostDesired.self, from: bytes)
    }

    /// Sets how many workers `host` should run; its supervisor applies it within a tick. The spool's
    /// number follows, as the default of a host that never set its own.
    public func setDesiredWorkers(_ workers: Int, of host: FarmHost = .local) throws(SpoolError) {
        try spool.scratch.replace(desiredPath(of: host), with: JSON.encode(HostDesired(workers: workers)))
        var desired = desired()
        if desired.workers != workers {
            desired.workers = workers
            try setDesired(desired)
        }
    }

    /// The bytes a second all of `host`'s transfers may take together; nil: no cap.
    public func bandwidthLimit(of host: FarmHost = .local) -> Int? {
        guard let bytes = try? FileSystem.readFile(limitPath(of: host), limit: 4096),
              let limit = JSON.decode(HostBandwidthLimit.self, from: bytes), limit.bytesPerSecond > 0 else { return nil }
        return limit.bytesPerSecond
    }

    /// Caps the bytes a second of all of `host`'s transfers together (0: no cap).
    public func setBandwidthLimit(_ bytesPerSecond: Int, of host: FarmHost = .local) throws(SpoolError) {
        let limit = HostBandwidthLimit(bytesPerSecond: max(0, bytesPerSecond))
        try spool.scratch.replace(limitPath(of: host), with: JSON.encode(limit))
    }

    /// What a worker says in its registry entry once it follows a cap of `rate` bytes a second (0: none).
    public static func followingBandwidthLimit(_ rate: Int) -> String { "limit \(rate)\n" }

    /// Waits until every worker of this host follows the cap `rate` (0: none), as each says in its registry
    /// entry, for at most `timeout` seconds: those still running that do not yet (a worker busy starting).
    /// A worker reads the cap 10 times a second, so this takes a tenth of a second or so.
    public func awaitBandwidthLimit(_ rate: Int, timeout: Double = 5) -> [FarmProcess] {
        let saying = Self.followingBandwidthLimit(max(0, rate))
        var behind: [FarmProcess] = []
        Clock.poll(every: 0.01, for: timeout) {
            behind = spool.registry.said(by: .worker).filter { $0.text != saying }.map(\.process)
            return behind.isEmpty
        }
        return behind
    }

    /// The workers of the whole spool, summed over hosts, as the status shows them: those running, and
    /// those desired by the hosts where a farm process runs (by every host that set a number when none
    /// does, so a stopped farm shows what the next start will run; a host that has left the farm for
    /// good counts only then). One read of the registry (`live`, when the caller has it) and of control/.
    public func workerCounts(live: [FarmProcess]? = nil) -> (desired: Int, running: Int) {
        let live = live ?? spool.registry.processes()
        let running = live.filter { $0.role == .worker }.count
        let hosts = Set(live.map(\.host))
        if !hosts.isEmpty { return (hosts.reduce(0) { $0 + desiredWorkers(of: $1) }, running) }
        let set = FileSystem.names(folder).compactMap { Self.host(ofDesiredName: $0) }.compactMap(hostDesired)
        return (set.isEmpty ? desired().workers : set.reduce(0) { $0 + $1.workers }, running)
    }
}
