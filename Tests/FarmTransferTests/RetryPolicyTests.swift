import FarmTransfer
import Testing

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(maxAttempts: 4, baseDelay: 1, maxDelay: 8)

    /// Jitter only lengthens a wait: the first retry never comes sooner than the base delay.
    @Test func backsOffExponentiallyWithJitterUpToTheCap() {
        let error = TransferError(.transient, "HTTP 503", httpStatus: 503)
        let upper = (1...3).map { policy.delay(after: error, attempt: $0, random: { $0.upperBound }) }
        let lower = (1...3).map { policy.delay(after: error, attempt: $0, random: { $0.lowerBound }) }
        #expect(upper == [1.5, 3, 6])
        #expect(lower == [1, 2, 4])
        let capped = policy.delay(after: error, attempt: 3, random: { $0.upperBound })
        #expect(RetryPolicy(maxAttempts: 9, baseDelay: 1, maxDelay: 2).delay(after: error, attempt: 5,
                                                                            random: { $0.lowerBound }) == 2)
        #expect(capped == 6)
        #expect(policy.delay(after: error, attempt: 4) == nil)
    }

    @Test func neverRetriesPermanentOrAbortedErrors() {
        #expect(policy.delay(after: TransferError(.permanent, "HTTP 404", httpStatus: 404), attempt: 1) == nil)
        #expect(policy.delay(after: TransferError(.aborted, "paused"), attempt: 1) == nil)
    }

    @Test func honoursRetryAfterWithinReason() {
        let soon = TransferError(.transient, "HTTP 429", httpStatus: 429, retryAfter: 5)
        #expect(policy.delay(after: soon, attempt: 1, random: { $0.lowerBound }) == 5)
        let never = TransferError(.transient, "HTTP 503", httpStatus: 503, retryAfter: 86400)
        #expect(policy.delay(after: never, attempt: 1, random: { $0.lowerBound }) == 32)
    }
}
