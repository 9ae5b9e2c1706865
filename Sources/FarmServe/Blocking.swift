import Dispatch

/// Runs blocking work (spool scans, file reads, waiting for a child) off the cooperative pool, which
/// has as few threads as the machine has cores and must stay free to serve. Stateless.
enum Blocking {
    static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        let result: Result<Value, any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Result { try work() }) }
        }
        return try result.get()
    }
}
