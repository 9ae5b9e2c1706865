import Dispatch
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// The demo's web server on 127.0.0.1 (never another address): each sample from memory, at the pace it
/// was given (the large photos are throttled, so progress shows for a while), and a 404 for anything
/// else. It is all `farm demo` needs of an origin; the tests' origin, with faults on demand, is a tool
/// that farm does not ship.
///
/// `start()` blocks until the server listens, `stop()` until it has stopped. Any thread may call them
/// and `serve`; the server answers on Hummingbird's tasks meanwhile.
public final class SampleOrigin: Sendable {
    private let files = SampleFiles()
    /// The port asked for, then the one bound.
    private let port: Mutex<Int>
    private let running = Mutex<Running?>(nil)

    private struct Running: Sendable {
        let task: Task<Void, Never>
        let finished: DispatchSemaphore
    }

    /// An origin that will listen on 127.0.0.1:`port`; 0 lets the system choose a free port.
    public init(port: Int) {
        self.port = Mutex(port)
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    public func url(for path: String) -> String {
        "http://127.0.0.1:\(port.withLock { $0 })" + path
    }

    /// Serves `bytes` at `path`, at most `bytesPerSecond` when given.
    func serve(path: String, bytes: [UInt8], contentType: String = "application/octet-stream",
               bytesPerSecond: Int? = nil) {
        let file = SampleFile(body: ByteBuffer(bytes: bytes), contentType: contentType, bytesPerSecond: bytesPerSecond)
        files.table.withLock { $0[path] = file }
    }

    /// Starts listening; returns once connections are accepted.
    public func start() throws(SampleOriginError) {
        let asked = port.withLock { $0 }
        let started = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Int, SampleOriginError>?>(nil)
        let app = Application(
            responder: SampleResponder(files: files),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: asked)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port
                outcome.withLock { $0 = bound.map { .success($0) } ?? .failure(SampleOriginError("no local port")) }
                started.signal()
            },
            logger: Logger(label: "farm.demo") { _ in SwiftLogNoOpLogHandler() })
        let task = Task {
            do {
                try await app.run()
            } catch {
                outcome.withLock { $0 = $0 ?? .failure(SampleOriginError("cannot serve on 127.0.0.1:\(asked): \(error)")) }
            }
            started.signal()
            finished.signal()
        }
        started.wait()
        switch outcome.withLock({ $0 }) {
        case .success(let bound)?:
            port.withLock { $0 = bound }
            running.withLock { $0 = Running(task: task, finished: finished) }
        case .failure(let error)?:
            finished.wait()
            throw error
        case nil:
            throw SampleOriginError("the server stopped before it listened on 127.0.0.1:\(asked)")
        }
    }

    /// Stops listening and drops every connection, throttled ones too; returns once stopped (or after 10 s).
    public func stop() {
        guard let run = running.withLock({ running in
            defer { running = nil }
            return running
        }) else { return }
        run.task.cancel()
        _ = run.finished.wait(timeout: .now() + 10)
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
    let table = Mutex<[String: SampleFile]>([:])
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
