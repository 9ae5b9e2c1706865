import FarmSystem
import Synchronization
import Testing

/// `Clock.poll` and `Clock.pause`, farm's one wait: it ends on its condition, on its time-out after a last look,
/// or when its give-up predicate says so, whichever comes first; it looks at the give-up before the condition.
@Suite struct PollTests {
    @Test func endsWhenTheConditionHoldsAndLooksAtItEachStep() {
        var looks = 0
        let polled = Clock.poll(every: 0.001, for: 60) {
            looks += 1
            return looks == 5
        }
        #expect(polled == .ready)
        #expect(looks == 5)
    }

    @Test func endsAtItsDeadlineAfterALastLook() {
        let started = Clock.monotonic()
        var looks = 0
        let polled = Clock.poll(every: 0.01, for: 0.1) {
            looks += 1
            return false
        }
        #expect(polled == .timedOut)
        #expect(Clock.monotonic() - started >= 0.1)
        // A look at the start, one after each sleep: the last one at the deadline.
        #expect(looks >= 2)
    }

    @Test func endsWhenGivenUpEvenWithNoDeadlineAndBeforeItsCondition() {
        // Another thread gives up for it: a stop, a pause seen by someone else.
        let stop = Atomic(false)
        Threads.detach {
            Clock.pause(0.05, every: 0.05)
            stop.store(true, ordering: .relaxed)
        }
        var looks = 0
        let polled = Clock.poll(every: 0.01, unless: { stop.load(ordering: .relaxed) }) {
            looks += 1
            return false
        }
        #expect(polled == .gaveUp)
        #expect(looks >= 1)
        // Given up already: the condition (which may take a lock or a slot) is not looked at.
        var looked = false
        #expect(Clock.poll(every: 0.01, unless: { true }) { looked = true; return true } == .gaveUp)
        #expect(!looked)
    }

    @Test func readsItsIntervalBeforeEachSleep() {
        // A condition that learns when to look next sets what `every` names: a long first interval
        // shortened by the first look ends the wait in moments, not after it.
        var next = 60.0
        var looks = 0
        let started = Clock.monotonic()
        let polled = Clock.poll(every: next, for: 120) {
            looks += 1
            next = 0.001
            return looks == 3
        }
        #expect(polled == .ready)
        #expect(Clock.monotonic() - started < 30)
    }

    @Test func aPauseWaitsItsTimeUnlessGivenUp() {
        let started = Clock.monotonic()
        #expect(Clock.pause(0.05))
        #expect(Clock.monotonic() - started >= 0.05)
        let stop = Atomic(false)
        Threads.detach {
            Clock.pause(0.05, every: 0.05)
            stop.store(true, ordering: .relaxed)
        }
        let long = Clock.monotonic()
        #expect(!Clock.pause(600, every: 0.01, unless: { stop.load(ordering: .relaxed) }))
        #expect(Clock.monotonic() - long < 300)
    }

    @Test func anErrorOfTheConditionEndsTheWait() {
        struct Broken: Error {}
        #expect(throws: Broken.self) {
            try Clock.poll(every: 0.001, for: 60) { () throws(Broken) -> Bool in throw Broken() }
        }
    }
}
