import FarmHTTP
import FarmSystem
import Hummingbird
import Logging
import NIOCore

/// The demo's web server on 127.0.0.1 (never another address): each sample from memory, at the pace it
/// was given (the large photos are throttled, so progress shows for a while), and a 404 for anything
/// else. It is all `farm demo` needs of an origin; the tests' origin, with faults on demand, is a tool
/// that farm does not ship.
///
/// `start()` blocks until the server listens, `stop()` until it has stopped. Any thread may call them
/// and `serve`; the server answers on Hummingbird's tasks meanwhile.
public final class SampleOrigin: Sendable {
    private let files = SampleFiles()
    private let askedPort: Int
    private let server = Locked<ServerTask?>(nil)

    /// An origin that will listen on 127.0.0.1:`port`; 0 lets the system choose a free port.
    public init(port: Int) {
        askedPort = port
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    public func url(for path: String) -> String {
        "http://127.0.0.1:\(server.withLock { $0?.port } ?? askedPort)" + path
    }

    /// Serves `bytes` at `path`, at most `bytesPerSecond` when given.
    func serve(path: String, bytes: [UInt8], contentType: String = "application/octet-stream",
               bytesPerSecond: Int? = nil) {
        let file = SampleFile(body: ByteBuffer(bytes: bytes), contentType: contentType, bytesPerSecond: bytesPerSecond)
        files.table.withLock { $0[path] = file }
    }

    /// Starts listening; returns once connections are accepted.
    public func start() throws(SampleOriginError) {
        let address = BindAddress.hostname("127.0.0.1", port: askedPort)
        do {
            let started = try ServerTask { onServerRunning in
                Application(responder: SampleResponder(files: files),
                            configuration: ApplicationConfiguration(address: address),
                            onServerRunning: onServerRunning,
                            logger: Logger(label: "farm.demo") { _ in SwiftLogNoOpLogHandler() })
            }
            server.withLock { $0 = started }
        } catch {
            throw SampleOriginError("cannot serve on 127.0.0.1:\(askedPort): \(error)")
        }
    }

    /// Stops listening and drops every connection, throttled ones too; returns once stopped (or after 10 s).
    public func stop() {
        server.withLock { $0 }?.stop(timeout: 10)
    }
}

/// Why the demo's origin could not start.
public struct SampleOriginError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// One sample as served: its bytes, type and pace. Immutable, shared by requests.
private struct SampleFile: Sendable {
    let body: ByteBuffer
    let contentType: String
    let bytesPerSecond: Int?
}

/// The samples by path. Written by the demo's thread, read by the server's tasks: behind a lock.
private final class SampleFiles: Sendable {
    let table = Locked<[String: SampleFile]>([:])
}

/// Answers every request of the demo's origin: a GET of a sample gets it, anything else a 404.
private struct SampleResponder: HTTPResponder {
    let files: SampleFiles

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        let path = request.uri.path
        guard request.method == .get, let file = files.table.withLock({ $0[path] }) else {
            return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: "404 Not Found\n")))
        }
        let headers: HTTPFields = [.contentType: file.contentType, .contentLength: String(file.body.readableBytes)]
        guard let rate = file.bytesPerSecond else {
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.body))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: file.body.readableBytes) {
            writer in
            // About twenty pieces a second, each sent no earlier than its last byte is due.
            let piece = min(max(rate / 20, 1), 64 << 10)
            let start = ContinuousClock.now
            var body = file.body
            var sent = 0
            while let bytes = body.readSlice(length: min(piece, body.readableBytes)), bytes.readableBytes > 0 {
                sent += bytes.readableBytes
                try await Task.sleep(until: start + .seconds(Double(sent) / Double(rate)), clock: .continuous)
                try await writer.write(bytes)
            }
            try await writer.finish(nil)
        })
    }
}
