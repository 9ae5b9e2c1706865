import FarmHTTP
import FarmSystem
import Hummingbird
import Logging
import NIOCore

/// A real HTTP/1.1 server on 127.0.0.1 or another loopback address (never anything else) for farm's tests, its chaos runner and its
/// benchmark (farm does not ship it). It serves fixtures from memory and files from directories with Content-Length, a strong ETag,
/// Last-Modified, ranges, If-Range, conditional GETs (304), HEAD and keep-alive; misbehaves on demand, per path, with `Fault`s; and records every
/// request it receives.
///
/// Thread-safe: any thread or task may configure it, read its log, start and stop it, while it serves.
/// `start()` and `stop()` block the calling thread until the server listens or has stopped. The server
/// runs its tasks on its own event loop threads, never on the cooperative pool, so it keeps answering
/// while synchronous tests block that pool. Stopped when released.
///
///     let origin = Origin()
///     origin.serve(path: "/a.jpg", bytes: jpeg, contentType: "image/jpeg")
///     origin.inject(.cutShort(afterBytes: 1000), at: "/a.jpg", times: 1)
///     try origin.start()
///     defer { origin.stop() }
///     // fetch origin.url(for: "/a.jpg"); then look at origin.requests and origin.bytesServed
public final class Origin: Sendable {
    private let catalog = Catalog()
    private let faults = FaultTable()
    private let log = RequestLog()
    private let requirements = Requirements()
    /// The port asked for, then the one bound: a restarted origin comes back at the same URLs.
    private let listenPort: Locked<Int>
    private let running = Locked<Running?>(nil)

    private struct Running: Sendable {
        let executor: EventLoopExecutor
        let server: ServerTask
    }

    /// The loopback address it listens on: 127.0.0.1, or another of 127.0.0.0/8 for a test that needs
    /// distinct hosts on this machine.
    public let host: String

    /// An origin that will listen on `host`:`port`; port 0 (the default) lets the system choose a free port.
    public init(port: Int = 0, host: String = "127.0.0.1") {
        precondition((0...65535).contains(port), "port \(port) out of range")
        precondition(host.hasPrefix("127.") && host.split(separator: ".").count == 4, "\(host) is not a loopback address")
        listenPort = Locked(port)
        self.host = host
    }

    deinit {
        stop()
    }

    // MARK: Life

    /// Starts listening; returns once connections are accepted. Does nothing if already started.
    public func start() throws(OriginError) {
        try running.withLock { (running: inout Running?) throws(OriginError) in
            guard running == nil else { return }
            let port = listenPort.withLock { $0 }
            let executor = EventLoopExecutor(threads: 2)
            let responder = OriginResponder(catalog: catalog, faults: faults, log: log,
                                            requirements: requirements)
            do throws(ServerTaskError) {
                let server = try ServerTask(executor: executor) { onServerRunning in
                    Application(responder: responder,
                                configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
                                onServerRunning: onServerRunning,
                                eventLoopGroupProvider: .shared(executor.group),
                                logger: Logger(label: "farm.origin") { _ in SwiftLogNoOpLogHandler() })
                }
                listenPort.withLock { $0 = server.port }
                running = Running(executor: executor, server: server)
            } catch {
                // A server that did not answer in time may still run on the event loops: leave them.
                if case .timedOut = error {} else { try? executor.group.syncShutdownGracefully() }
                throw OriginError("cannot serve on \(host):\(port): \(error)")
            }
        }
    }

    /// Stops listening and drops every connection (stalled and throttled ones too); returns once the server
    /// has stopped. Configuration and log are kept, and `start()` brings it back on the same port.
    public func stop() {
        guard let run = running.withLock({ running in
            defer { running = nil }
            return running
        }) else { return }
        // Past the deadline some task still runs on the event loops: leaking their threads beats a crash.
        guard run.server.stop(timeout: 60) else { return }
        try? run.executor.group.syncShutdownGracefully()
    }

    public var isRunning: Bool { running.withLock { $0 != nil } }

    /// The port it listens on (the one it listened on, once stopped); the one asked for before `start()`.
    public var port: Int { listenPort.withLock { $0 } }

    /// `http://HOST:PORT/` followed by `path` (given with or without its leading slash).
    public func url(for path: String) -> String {
        "http://\(host):\(port)" + (path.hasPrefix("/") ? path : "/" + path)
    }

    // MARK: Content

    /// Serves `bytes` at `path` (matched exactly, as sent in the request line, without the query), replacing
    /// what was there. Served before any directory.
    public func serve(path: String, bytes: [UInt8], contentType: String = "application/octet-stream") {
        catalog.add(bytes, contentType: contentType, at: path)
    }

    /// Serves the regular files under `directory` at `prefix` + their relative path, read at each request
    /// (so a test may change them), typed by extension. Nothing outside `directory` is ever served.
    public func serve(directory: String, at prefix: String = "/") {
        catalog.mount(directory, at: prefix)
    }

    /// Serves a paged JSON API at `path`: page N (from 1) of `pages` answers `path?<parameter>=N`, the first
    /// answers `path` alone, other query parameters are ignored. Each page is a resource of its own, at
    /// `path?<parameter>=N` for `inject`, `fail`, `remove` and `requests(forPage:of:)`; a page number past
    /// the end answers 404. See `PagedAPI` for pages of items with a next page.
    public func servePages(at path: String, parameter: String = "page", pages: [[UInt8]]) {
        catalog.servePages(at: path, parameter: parameter)
        for (index, page) in pages.enumerated() {
            catalog.add(page, contentType: "application/json", at: path + "?" + parameter + "=" + String(index + 1))
        }
    }

    /// The requests for page `page` (from 1) of the paged API at `path`.
    public func requests(forPage page: Int, of path: String, parameter: String = "page") -> [LoggedRequest] {
        let key = path + "?" + parameter + "=" + String(page)
        return log.all.filter { $0.path == path && catalog.key(path, query: $0.query) == key }
    }

    /// Stops serving the fixture at `path` (it answers 404 unless a directory has it).
    public func remove(path: String) {
        catalog.remove(path)
    }

    /// What the origin served at `path` since the start (or the last `clearRequests()`): bodies of the
    /// resource (200 and 206 answers to GET) and 304s (conditional requests whose validators matched).
    public func served(_ path: String) -> ServedCounts {
        log.all.reduce(into: ServedCounts()) { counts, request in
            guard request.path == path else { return }
            counts.add(request)
        }
    }

    /// `served(_:)` summed over every path.
    public var servedCounts: ServedCounts {
        log.all.reduce(into: ServedCounts()) { $0.add($1) }
    }

    /// The Last-Modified the origin sends for `path` now; nil for nothing there.
    public func lastModified(for path: String) -> String? {
        catalog.lookup(path)?.lastModified
    }

    /// The strong ETag the origin sends for `path` now, quotes included; nil for nothing there.
    public func etag(for path: String) -> String? {
        catalog.lookup(path)?.etag
    }

    // MARK: Faults

    /// Makes `path` misbehave as `fault` says: for the next `times` requests it applies to, or until cleared
    /// when nil. Faults of different kinds on one path combine (say fail twice, then serve throttled); two of
    /// one kind apply one after the other. An answer (`status`, `redirect`, `reset(afterBytes: nil)`) counts
    /// every request to the path; the other faults count the GET requests they shape (those for a resource
    /// that exists).
    public func inject(_ fault: Fault, at path: String, times: Int? = nil) {
        faults.add(fault, at: path, times: times)
    }

    /// Answers `status` (401, 403…) to every request on `path` whose header `field` does not contain
    /// `value` (a token, `name=value` of a cookie): a source that wants credentials. Demands add up.
    public func require(_ field: String, containing value: String, orAnswer status: Int, at path: String) {
        requirements.add(field: field, containing: value, status: status, at: path)
    }

    /// Fails the next `times` requests to `path` with `status` (and `Retry-After: retryAfter` when given),
    /// then serves normally.
    public func fail(_ times: Int, with status: Int, retryAfter: RetryAfter? = nil, at path: String) {
        faults.add(.status(status, retryAfter: retryAfter), at: path, times: times)
    }

    /// The faults still set on `path`, in the order they apply.
    public func faults(at path: String) -> [Fault] {
        faults.faults(at: path)
    }

    public func clearFaults(at path: String) {
        faults.clear(path)
    }

    public func clearFaults() {
        faults.clearAll()
    }

    // MARK: Log

    /// Every request received since the start (or the last `clearRequests()`), in order of arrival.
    public var requests: [LoggedRequest] { log.all }

    public func requests(for path: String) -> [LoggedRequest] {
        log.all.filter { $0.path == path }
    }

    /// The most requests that were in flight at once since the start (or the last `clearRequests()`), counted
    /// exactly as they come and go, not sampled: a request is in flight from its arrival until just before
    /// the last bytes of its response are handed to the connection, so one that a client could see whole is
    /// never counted with the next it starts. A client that leaves mid-body counts until the origin notices.
    /// With the sequence numbers of the requests that made it (`LoggedRequest.sequence`).
    public var mostInFlight: (count: Int, sequences: [Int]) { log.mostInFlight }

    /// Body bytes handed to clients in all, across every path and response (error bodies included).
    public var bytesServed: Int { log.bodyBytes }

    public func clearRequests() {
        log.clear()
    }
}
