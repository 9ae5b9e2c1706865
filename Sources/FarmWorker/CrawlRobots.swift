import FarmLists
import FarmMirror
import FarmSpool
import FarmSystem
import FarmTransfer
import SystemPackage

/// The robots.txt of the origins a recursive list requests (SPEC §18: each host's robots.txt before its
/// other requests): its start origin's and those it spans to (`--span-hosts`). The worker that first needs
/// an origin's rules fetches them and keeps them in the spool (FarmLists' HostRobots), where every other
/// worker reads them, then in memory. The start origin's are first needed by the list's first request (its
/// Crawl-delay is asked before it, TransferSlot), so `farm add` makes no request and loads no libcurl; a
/// spanned origin's by the first page that links there, before any link to it enters the list. Two workers
/// that need a new origin at once may both fetch it; the second's file replaces the first's, with the same
/// rules.
final class CrawlRobots: Sendable {
    private let spool: Spool
    /// By list, then origin.
    private let known = Locked([String: [String: Robots]]())

    init(spool: Spool) { self.spool = spool }

    /// `origin`'s rules for list `id`, fetched with the list's request options if no worker has yet, on the
    /// worker's transfer pool when it has one: the connection is the one the origin's next request reuses.
    func rules(for origin: WebURL, ofList id: String, request: RequestOptions?, pool: TransferPool? = nil) -> Robots {
        if let rules = known.withLock({ $0[id]?[origin.origin] }) { return rules }
        var robots = spool.robots(ofList: id, origin: origin.origin)
        if robots == nil {
            let fetched = Self.fetch(origin, scratch: spool.scratch.path("robots"), request: request, pool: pool)
            spool.keep(fetched, ofList: id)
            robots = fetched
        }
        let rules = robots?.rules ?? .disallowAll
        known.withLock { $0[id, default: [:]][origin.origin] = rules }
        return rules
    }

    /// Fetches `origin`'s robots.txt (redirects followed, the final answer counts) with the list's request
    /// options, through the scratch file `scratch`, which it removes.
    static func fetch(_ origin: WebURL, scratch: String, request: RequestOptions?, pool: TransferPool?) -> HostRobots {
        var robots = HostRobots(origin: origin.origin, status: nil, body: nil)
        guard let fd = try? FileDescriptor.open(scratch, .readWrite, options: [.create, .exclusiveCreate],
                                                permissions: 0o600) else { return robots }
        defer {
            fd.closeQuietly()
            try? FileSystem.unlink(scratch)
        }
        var options = request ?? RequestOptions()
        options.crawl = nil
        do throws(TransferError) {
            let handle = try EasyHandle(pool: pool)
            let result = try handle.download(DownloadRequest(url: origin.robotsURL.description,
                                                             maxSize: Robots.parseLimit * 4, connectTimeout: 10,
                                                             stallTimeout: 30, options: options),
                                             into: fd) { _ in true }
            let body = (try? FileSystem.readFile(scratch, limit: Robots.parseLimit)) ?? []
            robots.status = result.httpStatus
            robots.body = String(decoding: body.prefix(Robots.parseLimit), as: UTF8.self)
        } catch {
            robots.status = error.httpStatus
        }
        return robots
    }
}
