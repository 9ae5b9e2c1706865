import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Testing

/// The queue's bell: an idle claimer sleeping on it wakes when jobs enter the queue, not at the end of its
/// back-off. Every wait here is a minute long: one that returns `true` was woken by a ring.
@Suite struct QueueBellTests {
    @Test func anAddWakesEverySlotSleepingOnTheBell() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        let bell = try #require(QueueBell(spool))
        let seen = bell.count
        #expect(!bell.wait(0.2, since: seen), "nothing entered the queue: the wait runs its time")

        let woken = Locked(0)
        let slots = DispatchGroup()
        for _ in 0..<3 {
            slots.enter()
            Thread.detachNewThread {
                if bell.wait(60, since: seen) { woken.withLock { $0 += 1 } }
                slots.leave()
            }
        }
        Thread.sleep(forTimeInterval: 0.3)
        let (list, jobs) = SpoolFixtures.jobs(5)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        #expect(slots.wait(timeout: .now() + 60) == .success)
        #expect(woken.withLock { $0 } == 3)
    }

    /// A ring between a slot's look at the queue and its sleep is not slept through: the slot read the count
    /// before it looked.
    @Test func aRingDrainedByAnotherSlotBeforeTheSleepIsNotSleptThrough() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        let bell = try #require(QueueBell(spool))
        let seen = bell.count
        let (list, jobs) = SpoolFixtures.jobs(1)
        try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        #expect(bell.wait(60, since: seen), "a slot that looked before the ring wakes at once")
        #expect(bell.wait(60, since: seen), "and so does a second one")
        #expect(!bell.wait(0.2, since: bell.count), "a slot that looked after it sleeps")
    }
}
