import FarmJSON
import FarmSystem

// Hosts sharing one spool (SPEC §11). Each host runs its own supervisor, which holds
// `control/supervisor.<host>.lock` and keeps `control/desired.<host>.json` true for that host's
// processes only: it signals, counts, adopts and releases the jobs of its own host's processes, whose
// pids mean something there alone. A host that never set its own number of workers runs the spool's
// (FarmDesired's `Desired.workers`). Everything else of control/ (the settings, paused, stopping) is the
// whole spool's.

extension ControlFiles {
    /// Held (flock) by the live supervisor of this host; free means it has none.
    public var supervisorLock: String { supervisorLock(of: .local) }

    /// Held (flock) by the live supervisor of `host`.
    public func supervisorLock(of host: FarmHost) -> String { folder + "/supervisor." + host.raw + ".lock" }

    /// Held (flock) by the watcher that serves the spool, which writes its registration name into it.
    public var watcherLock: String { path(.watcherLock) }

    package func desiredPath(of host: FarmHost) -> String { folder + "/" + Self.desiredPrefix + host.raw + ".json" }
    private static let desiredPrefix = "desired."

    /// The host whose desired workers the file of control/ named `name` holds; nil when it is no such file.
    package static func host(ofDesiredName name: String) -> FarmHost? {
        guard name.hasPrefix(desiredPrefix), name.hasSuffix(".json") else { return nil }
        return FarmHost(raw: String(name.dropFirst(desiredPrefix.count).dropLast(".json".count)))
    }

    package func limitPath(of host: FarmHost) -> String { folder + "/" + Self.limitPrefix + host.raw + ".json" }

    static let limitPrefix = "limit."

    /// Whether `name` in control/ is a host's bandwidth cap.
    static func isLimitName(_ name: String) -> Bool { name.hasPrefix(limitPrefix) && name.hasSuffix(".json") }

    /// The shared allowance of `host`'s transfers under its bandwidth cap (FarmHosts' `BandwidthBucket`).
    public func bandwidthBucketPath(of host: FarmHost = .local) -> String {
        folder + "/bandwidth." + host.raw + ".bucket"
    }
}
