import FarmJSON
import FarmMirror
import FarmSystem
import SystemPackage

/// One origin's robots.txt as a recursive list fetched it (SPEC §18: each host's robots.txt before its
/// other requests): the start origin's is kept in `CrawlSettings`, fetched by `farm add`; each other origin
/// the list spans to (`--span-hosts`) gets one of these, fetched by the worker whose page first links there,
/// before any link to it enters the list.
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

    /// Fetches `origin`'s robots.txt (redirects followed, the final answer counts) with the list's request
    /// options, through the scratch file `scratch`, which it removes.
    public static func fetch(_ origin: WebURL, scratch: String, request: RequestOptions?) -> HostRobots {
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
            let handle = try EasyHandle()
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
