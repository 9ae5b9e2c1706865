import FarmJSON

/// A recursive list's progress on one host (issue 64: pages found, fetched and queued, per host), in the
/// per-list view (`farm status LIST`, `--json`'s `"hosts"`): counted from the list's rows, so it costs the
/// per-list view nothing more than a pass over them. The windows of the list (`farm top`, `farm serve`)
/// count them from where the jobs are (`HostTable`, `ListWindows`); the whole-spool summary has none. A value.
public struct HostCounts: Equatable, Sendable, JSONRecord {
    /// "host" or "host:port", as in the URLs.
    public var host: String
    /// Resources of that host in the list: every link added.
    public var found: Int
    /// Done or failed.
    public var fetched: Int
    public var active: Int
    public var queued: Int

    public init(host: String, found: Int, fetched: Int, active: Int, queued: Int) {
        self.host = host
        self.found = found
        self.fetched = fetched
        self.active = active
        self.queued = queued
    }

    /// Each host of `resources`, in the order its first resource comes.
    static func of(_ resources: [ResourceStatus]) -> [HostCounts] {
        var counts: [HostCounts] = []
        var place: [Substring: Int] = [:]
        for resource in resources {
            let host = Self.host(of: resource.url)
            let at = place[host] ?? {
                counts.append(HostCounts(host: String(host), found: 0, fetched: 0, active: 0, queued: 0))
                place[host] = counts.count - 1
                return counts.count - 1
            }()
            counts[at].found += 1
            switch resource.status {
            case .done, .error: counts[at].fetched += 1
            case .queued: counts[at].queued += 1
            case .downloading, .unzipping, .rendering: counts[at].active += 1
            }
        }
        return counts
    }

    /// The authority of `url` without its user: what comes after "//" up to the path, query or fragment.
    static func host(of url: String) -> Substring {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        rest = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        return rest
    }
}
