import FarmJSON
import FarmMirror
import FarmSpool
import FarmSystem

/// One origin's robots.txt as a recursive list fetched it (SPEC §18: each host's robots.txt before its
/// other requests), kept in `lists/<list>.robots-<key>` (`ListFiles.robotsPath`). The start origin's and each
/// origin the list spans to (`--span-hosts`) get one, written by the worker that first needs it (FarmWorker's
/// CrawlRobots.swift) and read by the other workers and by the views (`shownList`).
public struct HostRobots: Equatable, Sendable, JSONRecord {
    public var origin: String
    /// The final answer's status (nil: the server gave none) and body.
    public var status: Int?
    public var body: String?

    public init(origin: String, status: Int?, body: String?) {
        self.origin = origin
        self.status = status
        self.body = body
    }

    /// The rules for the user agent `farm`, else `*` (RFC 9309 §2.3.1 for an answer without a body of rules).
    public var rules: Robots {
        switch Robots.outcome(forStatus: status) {
        case .parse: Robots(parsing: Array((body ?? "").utf8), userAgent: "farm")
        case .allowAll: .allowAll
        case .disallowAll: .disallowAll
        }
    }
}

extension Spool {
    /// The robots.txt of `origin` kept for list `id`, when a worker fetched it (nil: not yet).
    public func robots(ofList id: String, origin: String) -> HostRobots? {
        let kept = (try? FileSystem.readFile(lists.robotsPath(ofList: id, origin: origin)))
            .flatMap { JSON.decode(HostRobots.self, from: $0) }
        return kept?.origin == origin ? kept : nil
    }

    /// Keeps `robots` for list `id`. Not synced: lost in a power cut, the next request that needs it fetches
    /// it again.
    public func keep(_ robots: HostRobots, ofList id: String) {
        let path = lists.robotsPath(ofList: id, origin: robots.origin)
        try? scratch.writeWhole(JSON.encode(robots), to: path, durable: false)
    }

    /// List `id` as the views show it: `list(id)`, with the `Crawl-delay` its start origin's robots.txt asked
    /// once a worker fetched it (the list says why it is slow). Only the views pay the read: the add makes
    /// no request (its list would wait for a server), the list's first job fetches robots.txt first.
    public func shownList(_ id: String) -> ListRecord? {
        guard var record = list(id) else { return nil }
        if record.request?.recursive?.robots == true, let start = WebURL(record.source),
           let delay = robots(ofList: id, origin: start.origin)?.rules.crawlDelay, delay > 0 {
            record.request?.recursive?.crawlDelay = delay
        }
        return record
    }
}
