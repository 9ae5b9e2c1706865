import Dispatch
import FarmControl
import FarmRPC
import FarmSpool
import FarmStatus
import FarmSystem
import FoundationEssentials
import Glibc
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL

/// `farm serve`: the app's three screens for a browser, over HTTP on `host:port` (127.0.0.1 unless
/// told otherwise), live through server-sent events fed by inotify.
///
/// `start()` blocks until the server listens (or throws why it cannot); `stop()` until it has
/// stopped. Either may be called from any thread; the server runs its own tasks meanwhile.
///
///     let server = try WebServer(spool: spool, port: 0)
///     try server.start()
///     print(server.url)         // http://127.0.0.1:41234/
///     server.stop()
public final class WebServer: Sendable {
    public static let defaultPort = 8771

    public let spool: Spool
    public let host: String
    /// A fresh random token per server: the page gets it in its HTML, and requests that change the
    /// farm must send it back.
    public let token: String
    private let port: Int
    private let hub: StatusHub
    private let access: ServeAccess
    /// The certificate and key to serve HTTPS with; nil: plain HTTP.
    private let tls: TLSConfiguration?
    /// aria2's JSON-RPC at /jsonrpc (SPEC §16).
    private let rpc: Aria2RPC
    private let running = Locked<Running?>(nil)

    private struct Running: Sendable {
        let port: Int
        let task: Task<Void, Never>
        let finished: DispatchSemaphore
    }

    /// A server for `spool` that will listen on `host:port` (port 0: any free port).
    /// `poll`: `--poll` (see FarmChangeFeed's `Polling`). `password`: every request needs it (HTTP Basic, user
    /// `farm`); required on an address other machines can reach. `tls`: serve HTTPS with this certificate
    /// chain and key (PEM files).
    public init(spool: Spool, host: String = "127.0.0.1", port: Int = defaultPort, poll: Bool = false,
                password: String? = nil, tls: (certificate: String, key: String)? = nil, rpcSecret: String? = nil,
                rpcFolder: String? = nil) throws(ServeError) {
        guard (0...65535).contains(port) else {
            throw ServeError(.badRequest, "--port must be from 0 to 65535 (got \(port))")
        }
        guard password != nil || Self.isLoopback(host) else {
            throw ServeError(.badRequest, "--host \(host) can be reached from other machines: give --password-file FILE "
                             + "(every request then needs user \(ServeAccess.user) and that password)")
        }
        self.spool = spool
        self.host = host
        self.port = port
        access = ServeAccess(password: password)
        self.tls = try tls.map { files throws(ServeError) in try Self.configuration(files) }
        var random = SystemRandomNumberGenerator()
        token = (0..<4).map { _ in
            let hex = String(random.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
        hub = StatusHub(spool: spool, poll: poll)
        rpc = Aria2RPC(control: Control(spool: spool), secret: rpcSecret,
                       folder: rpcFolder ?? FileManager.default.currentDirectoryPath)
    }

    /// The page's address, e.g. `http://127.0.0.1:8771/`.
    public var url: String {
        let bound = running.withLock { $0?.port } ?? port
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(name):\(bound)/"
    }

    private var scheme: String { tls == nil ? "http" : "https" }

    /// Whether only this machine can reach `host`: 127.0.0.0/8, ::1 or localhost.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bare.lowercased() == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// The server's TLS from its PEM files: the certificate chain (leaf first) and its private key.
    private static func configuration(_ files: (certificate: String, key: String)) throws(ServeError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(files.certificate) } catch {
            throw ServeError(.badRequest, "cannot read the certificate \(files.certificate): \(error)", cause: error)
        }
        guard !chain.isEmpty else { throw ServeError(.badRequest, "no certificate in \(files.certificate)") }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: files.key, format: .pem) } catch {
            throw ServeError(.badRequest, "cannot read the private key \(files.key): \(error)", cause: error)
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                        privateKey: .privateKey(key))
    }

    /// Starts listening; returns once connections are accepted.
    public func start() throws(ServeError) {
        let started = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Int, ServeError>?>(nil)
        hub.start()
        // The guard needs the bound port, known only once listening (it is set before any request).
        let guarding = RequestGuard(token: token, host: host, scheme: scheme)
        // HTTP/1.1 that also takes aria2's RPC as a WebSocket at /jsonrpc (SPEC §16).
        let sockets = RPCSockets(rpc: rpc, hub: hub, spool: spool, access: access)
        let http: HTTPServerBuilder = .http1WebSocketUpgrade(
            configuration: .init(ws: WebSocketServerConfiguration(maxFrameSize: RPCMessage.maxBytes))) {
            head, channel, _ in sockets.shouldUpgrade(head, channel: channel, guarding: guarding)
        }
        let server: HTTPServerBuilder
        do { server = try tls.map { try .tls(http, tlsConfiguration: $0) } ?? http } catch {
            throw ServeError(.badRequest, "cannot serve HTTPS with that certificate and key: \(error)", cause: error)
        }
        let app = Application(
            responder: ServeResponder(spool: spool, page: Page(token: token), hub: hub, access: access, guarding: guarding,
                                      actions: Actions(control: Control(spool: spool)), windows: ListWindows(),
                                      rpc: RPCEndpoint(rpc: rpc, guarding: guarding)),
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "farm"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port
                if let bound { guarding.port.store(bound, ordering: .releasing) }
                let unbound = ServeError(.internalServerError, "the server has no local port")
                outcome.withLock { $0 = bound.map { .success($0) } ?? .failure(unbound) }
                started.signal()
            },
            logger: Logger(label: "farm.serve") { _ in SwiftLogNoOpLogHandler() })
        let host = host, port = port
        let task = Task {
            do {
                try await app.run()
            } catch {
                outcome.withLock { $0 = $0 ?? .failure(Self.explain(error, host: host, port: port)) }
            }
            started.signal()
            finished.signal()
        }
        started.wait()
        switch outcome.withLock({ $0 }) {
        case .success(let bound)?:
            running.withLock { $0 = Running(port: bound, task: task, finished: finished) }
        case .failure(let error)?:
            finished.wait()
            hub.stop()
            throw error
        case nil:
            hub.stop()
            throw ServeError(.internalServerError, "the server stopped before it listened on \(host):\(port)")
        }
    }

    /// Ends every event stream and stops listening; returns once stopped (or after 10 s).
    public func stop() {
        guard let run = running.withLock({ running in
            defer { running = nil }
            return running
        }) else { return }
        hub.stop()
        run.task.cancel()
        _ = run.finished.wait(timeout: .now() + 10)
    }

    /// Why the server could not listen, told by the socket's errno (or a name that does not resolve).
    private static func explain(_ error: any Error, host: String, port: Int) -> ServeError {
        let reason: String
        switch (error as? IOError)?.errnoCode {
        case EADDRINUSE?: reason = "the port is in use; pick another with --port (0 for any free one)"
        case EADDRNOTAVAIL?: reason = "no such local address; try --host 127.0.0.1"
        default:
            reason = error is SocketAddressError.UnknownHost ? "no such local address; try --host 127.0.0.1" : "\(error)"
        }
        return ServeError(.internalServerError, "cannot listen on \(host):\(port): \(reason)", cause: error)
    }
}
