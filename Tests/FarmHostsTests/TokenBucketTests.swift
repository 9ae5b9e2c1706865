import FarmDesired
import FarmHosts
import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Testing

/// The per-host token bucket of SPEC §10, shared through the spool by every transfer of every worker:
/// however many take from it at once, it grants no more than its burst and its rate since the start.
@Suite struct TokenBucketTests {
    @Test func manyTakersAtOnceGetNoMoreThanTheRate() throws {
        let dir = TemporaryDirectory("farm-bucket")
        let spool = try Spool(root: dir.appending("spool"))
        let host = try #require(HostKey(url: "http://127.0.0.2:8080/a.png"))
        // A modest rate: the bucket holds one token (HostGate.burst).
        let rate = 20.0, takers = 24, seconds = 3.0
        let granted = Counter()
        let group = DispatchGroup()
        let start = Clock.wall()
        for _ in 0..<takers {
            group.enter()
            Thread {
                let gate = HostGate(spool: spool, limits: HostLimits(ratePerHost: rate))
                while gate.awaitToken(host, while: { Clock.wall() - start < seconds }) { granted.add() }
                group.leave()
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        let elapsed = Clock.wall() - start
        let most = Int((1 + rate * elapsed).rounded(.down))
        #expect(granted.value <= most, "\(granted.value) tokens granted in \(elapsed) s, at most \(most) allowed")
        // The takers were kept busy: the bucket gave about its rate, not far below it.
        #expect(Double(granted.value) >= rate * seconds * 0.8, "only \(granted.value) tokens in \(elapsed) s")
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
