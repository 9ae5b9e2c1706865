/// When to try a transient failure again: exponential back-off from `baseDelay`, capped, with jitter
/// that only lengthens it (so a failing server is never asked again sooner than `baseDelay`, and workers
/// that failed together drift apart), and never sooner than the server's `Retry-After`. A value: any
/// thread may use it.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first one included.
    public var maxAttempts: Int
    public var baseDelay: Double
    public var maxDelay: Double

    public init(maxAttempts: Int = 5, baseDelay: Double = 0.5, maxDelay: Double = 30) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Seconds to wait before attempt `attempt + 1` after `error` ended attempt `attempt` (1-based),
    /// or nil when the error must not be retried or the attempts are spent.
    public func delay(after error: TransferError, attempt: Int,
                      random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }) -> Double? {
        guard error.kind == .transient, attempt < maxAttempts else { return nil }
        let floor = min(maxDelay, baseDelay * Double(1 << min(attempt - 1, 20)))
        let jittered = random(floor ... floor * 1.5)
        guard let retryAfter = error.retryAfter else { return jittered }
        // Honour the server, within reason: a Retry-After of a day would stall a worker for good.
        return max(jittered, min(retryAfter, maxDelay * 4))
    }
}
