import FarmHTTP
import FarmOrigin
import FarmTestSupport
import Hummingbird
import Logging
import NIOCore
import Testing

/// `ServerTask` serves a Hummingbird application from synchronous code: listening when `init` returns, on
/// the port it names, refused when the port is taken, and gone (connections refused) once stopped. The
/// servers run on event loops of their own, as the origin's do: a test blocked in `init` holds a thread of
/// the cooperative pool, which may have no other.
@Suite struct ServerTaskTests {
    private let executor = EventLoopExecutor(threads: 1)

    private static func application(port: Int, _ onServerRunning: @escaping @Sendable (any Channel) async -> Void)
        -> some ApplicationProtocol {
        let router = Router()
        router.get("/hello") { _, _ in "hello from the task" }
        return Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
                           onServerRunning: onServerRunning,
                           logger: Logger(label: "farm.test") { _ in SwiftLogNoOpLogHandler() })
    }

    private static func get(_ port: Int) throws -> (exit: Int32, body: String) {
        let result = try run("/usr/bin/curl", ["--silent", "--max-time", "10", "http://127.0.0.1:\(port)/hello"],
                             timeout: 30)
        return (result.status, result.output)
    }

    @Test func servesOnTheChosenPortUntilStopped() throws {
        let server = try ServerTask(executor: executor) { Self.application(port: 0, $0) }
        #expect(server.port > 0)
        let answer = try Self.get(server.port)
        #expect(answer.exit == 0)
        #expect(answer.body == "hello from the task")
        #expect(server.stop(timeout: 10))
        // curl's 7: the connection was refused, nobody listens there any more.
        #expect(try Self.get(server.port).exit == 7)
        #expect(server.stop(timeout: 1), "stopping again returns at once")
    }

    @Test func aTakenPortIsRefusedWithHummingbirdsReason() throws {
        let first = try ServerTask(executor: executor) { Self.application(port: 0, $0) }
        defer { first.stop(timeout: 10) }
        #expect {
            _ = try ServerTask(executor: executor) { Self.application(port: first.port, $0) }
        } throws: { error in
            guard let error = error as? ServerTaskError, case .failed = error else { return false }
            return !error.description.isEmpty
        }
        #expect(try Self.get(first.port).body == "hello from the task", "the first server is untouched")
    }
}
