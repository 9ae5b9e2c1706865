@testable import FarmSpool
import FarmSystem
import Glibc
import Synchronization
import Testing

/// A handler installed once hears every point passed, however many: it once grew two thunks a point
/// passed, until calling it overflowed the stack of whichever thread passed the next one.
@Suite struct FailpointTests {
    @Test func aHandlerHearsAHundredThousandPointsWithoutGrowing() {
        let heard = Atomic<Int>(0)
        let me = pthread_self()
        let mine: @Sendable (String) -> Void = { point in
            if point == "failpoint.test", pthread_equal(pthread_self(), me) != 0 { heard.add(1, ordering: .relaxed) }
        }
        defer { Failpoint.install { _ in } }  // the process's other tests pass points too
        Failpoint.install(mine)
        // With a handler that grew at every point, calling it would have overflowed the stack long before.
        for _ in 0..<100_000 { Failpoint.hit("failpoint.test") }
        #expect(heard.load(ordering: .relaxed) > 0)
        // And it still hears the next one (installed again: another suite may have put its own meanwhile).
        var heardNext = false
        for _ in 0..<3 where !heardNext {
            let before = heard.load(ordering: .relaxed)
            Failpoint.install(mine)
            Failpoint.hit("failpoint.test")
            heardNext = heard.load(ordering: .relaxed) > before
        }
        #expect(heardNext)
    }
}
