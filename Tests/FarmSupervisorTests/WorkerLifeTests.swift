@testable import FarmSupervisor
import Testing

/// The supervisor's table of a worker's life: what each event does in each state. The processes that live
/// by it are tested whole by the other suites here (kills, scale, stop) and by bin/chaos.
@Suite struct WorkerLifeTests {
    @Test func aSpawnedWorkerRunsOnceRegisteredAndIsKilledWhenItNeverIs() {
        #expect(WorkerLife.next(.starting(since: 1), on: .registered, at: 2) == (.running, .none))
        #expect(WorkerLife.next(.starting(since: 1), on: .startupOverdue, at: 17) == (nil, .kill))
        #expect(WorkerLife.next(.starting(since: 1), on: .retire, at: 2) == (.starting(since: 1), .none))
    }

    @Test func aRetiredWorkerIsAskedOnceThenKilledAfterTheGrace() {
        #expect(WorkerLife.next(.running, on: .retire, at: 5) == (.retiring(since: 5), .terminate))
        #expect(WorkerLife.next(.retiring(since: 5), on: .retire, at: 6) == (.retiring(since: 5), .none))
        #expect(WorkerLife.next(.retiring(since: 5), on: .graceOver, at: 16) == (.retiring(since: 5), .kill))
        #expect(!WorkerLife.retiring(since: 5).counts && WorkerLife.running.counts && WorkerLife.starting(since: 0).counts)
    }

    @Test func aWorkerGoneInAnyStateHandsItsJobsBack() {
        for life in [WorkerLife.starting(since: 0), .running, .retiring(since: 0)] {
            #expect(WorkerLife.next(life, on: .gone, at: 1) == (nil, .handBack))
        }
    }
}
