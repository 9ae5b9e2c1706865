import Dispatch
import FarmSystem
import Hummingbird
import NIOCore

/// A Hummingbird application served by a task of its own, for callers that are not async (`farm demo`'s
/// origin; the tests' origin): `init` returns once the server listens, with the port it bound, or throws
/// why it could not; `stop` cancels the task and waits for the server to end. Any thread may call them.
public final class ServerTask: Sendable {
    /// The port the server listens on.
    public let port: Int
    private let task: Task<Void, Never>
    private let finished: DispatchSemaphore

    /// Builds the application with `make`, which must hand the `onServerRunning` it is given to Hummingbird,
    /// and runs it on `executor` (the global one when nil). Waits at most `timeout` seconds for it to listen;
    /// past that the task is cancelled.
    public init<App: ApplicationProtocol>(
        executor: (any TaskExecutor)? = nil, timeout: Double = 60,
        _ make: (_ onServerRunning: @escaping @Sendable (any Channel) async -> Void) -> App
    ) throws(ServerTaskError) {
        let started = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Int, ServerTaskError>?>(nil)
        let app = make { channel in
            let bound = channel.localAddress?.port
            outcome.withLock { $0 = bound.map { .success($0) } ?? .failure(.noPort) }
            started.signal()
        }
        let task = Task(executorPreference: executor) {
            do {
                try await app.run()
            } catch {
                outcome.withLock { $0 = $0 ?? .failure(.failed(error)) }
            }
            started.signal()
            finished.signal()
        }
        guard started.wait(timeout: .now() + timeout) == .success else {
            task.cancel()
            throw .timedOut(seconds: timeout)
        }
        switch outcome.withLock({ $0 }) {
        case .success(let bound)?:
            port = bound
            self.task = task
            self.finished = finished
        case .failure(let error)?:
            task.cancel()
            finished.wait()
            throw error
        case nil:
            throw .stoppedEarly
        }
    }

    /// Cancels the server's task (which drops every connection) and waits for it to end; false when it
    /// has not ended after `timeout` seconds. Stopping again returns at once.
    @discardableResult
    public func stop(timeout: Double) -> Bool {
        task.cancel()
        guard finished.wait(timeout: .now() + timeout) == .success else { return false }
        finished.signal()  // left signalled: the server has ended for good
        return true
    }
}

/// Why a `ServerTask` is not serving.
public enum ServerTaskError: Error, CustomStringConvertible {
    /// Hummingbird's own error: the address cannot be bound, say.
    case failed(any Error)
    case noPort
    case timedOut(seconds: Double)
    case stoppedEarly

    public var description: String {
        switch self {
        case .failed(let error): "\(error)"
        case .noPort: "the server has no local port"
        case .timedOut(let seconds): "the server did not start listening within \(Int(seconds)) s"
        case .stoppedEarly: "the server stopped before it listened"
        }
    }
}
