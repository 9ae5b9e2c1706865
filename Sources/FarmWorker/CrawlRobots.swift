import FarmJSON
import FarmMirror
import FarmSpool
import FarmSystem
import FarmTransfer

/// The robots.txt of the origins a recursive list spans to beyond its start (`--span-hosts`; SPEC §18:
/// each host's robots.txt before its other requests). No link to such an origin enters the list before
/// its rules are known: the worker whose page first links there fetches them and keeps them in the spool
/// (`Spool.robotsPath`), where every other worker reads them, then in memory. Two workers that find a new
/// origin at once may both fetch it; the second's file replaces the first's, with the same rules.
final class CrawlRobots: Sendable {
    private let spool: Spool
    /// By list, then origin.
    private let known = Locked([String: [String: Robots]]())

    init(spool: Spool) { self.spool = spool }

    /// `origin`'s rules for list `id`, fetched with the list's request options if no worker has yet.
    func rules(for origin: WebURL, ofList id: String, request: RequestOptions?) -> Robots {
        if let rules = known.withLock({ $0[id]?[origin.origin] }) { return rules }
        let path = spool.robotsPath(ofList: id, origin: origin.origin)
        var robots = (try? FileSystem.readFile(path)).flatMap { JSON.decode(HostRobots.self, from: $0) }
        if robots?.origin != origin.origin {
            let fetched = HostRobots.fetch(origin, scratch: spool.scratchPath("robots"), request: request)
            // Not synced: lost in a power cut, the next page that links there fetches it again.
            try? spool.writeWhole(JSON.encode(fetched), to: path, durable: false)
            robots = fetched
        }
        let rules = robots?.rules ?? .disallowAll
        known.withLock { $0[id, default: [:]][origin.origin] = rules }
        return rules
    }
}
