import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// Leases: a dead owner's job comes back after its lease and not before; a live owner's renewals
/// keep it; an owner that lost its lease can neither renew nor complete.
@Suite struct LeaseTests {
    @Test func killedOwnersJobComesBackAfterItsLeaseAndNotBefore() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        try spool.enqueue(SpoolFixtures.jobs(10).jobs, lists: [])
        let lease = 3.0

        // Every claim happens after this instant, so "reclaimed at least a lease after it" is a
        // necessary condition, whatever the load on the machine.
        let startedAt = Date()
        let holder = try ChildProcess("farm-probe", ["hold", "--spool", spool.root, "--count", "3"])
        #expect(holder.waitForLine(startingWith: "holding 3") != nil)
        let held = Set(holder.outputLines.filter { $0.hasPrefix("claimed ") }.map { String($0.split(separator: " ")[1]) })
        holder.kill(SIGKILL)
        #expect(holder.wait() != nil)
        // Dead, but its leases are young: nothing comes back yet.
        #expect(spool.reclaimExpired(lease: lease).isEmpty)

        var reclaimed = Set<String>()
        var firstReclaimAfter: Double?
        try #require(poll(timeout: 30, every: 0.02) {
            let now = spool.reclaimExpired(lease: lease)
            if !now.isEmpty && firstReclaimAfter == nil { firstReclaimAfter = Date().timeIntervalSince(startedAt) }
            reclaimed.formUnion(now.map(\.raw))
            return reclaimed.count == held.count
        })
        // ctime has jiffy resolution: allow a few milliseconds of rounding, no more.
        #expect(try #require(firstReclaimAfter) >= lease - 0.02)
        #expect(reclaimed == held)
        #expect(SpoolFixtures.counts(spool) == [.queued: 10])
    }

    @Test func renewedLeaseIsNeverReclaimed() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        try spool.enqueue(SpoolFixtures.jobs(2).jobs, lists: [])
        let holder = try ChildProcess("farm-probe", ["hold", "--spool", spool.root, "--count", "2",
                                                     "--renew-every", "0.2"])
        // A 2 s lease renewed every 0.2 s: ten renewals would have to be missed for a reclaim.
        #expect(holder.waitForLine(startingWith: "holding 2") != nil)
        let end = Date().addingTimeInterval(3)
        while Date() < end {
            #expect(spool.reclaimExpired(lease: 2).isEmpty)
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(spool.activeJobs().count == 2)
        holder.kill()
        holder.wait()
    }

    @Test func staleOwnerCannotCompleteAReclaimedJob() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        try spool.enqueue(SpoolFixtures.jobs(1).jobs, lists: [])
        let stale = try #require(try Claimer(spool: spool).claim())
        Thread.sleep(forTimeInterval: 0.05)
        #expect(spool.reclaimExpired(lease: 0.01) == [stale.job])

        // The same job, claimed again (here by the same process, the hardest case for names).
        let fresh = try #require(try Claimer(spool: spool).claim())
        #expect(fresh.job == stale.job)

        let attempts = [{ _ = try spool.complete(stale, .done) }, { try spool.renew(stale) }, { try spool.release(stale) }]
        for attempt in attempts {
            let error = try #require(throws: SpoolError.self) { try attempt() }
            #expect(error.code == .leaseLost)
        }
        try spool.renew(fresh)
        try spool.complete(fresh, .done)
        #expect(SpoolFixtures.counts(spool) == [.done: 1])
        #expect(SpoolFixtures.duplicates(in: spool).isEmpty)
    }

    @Test func deadWorkersJobsAreReleasedAtOnceByPid() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        try spool.enqueue(SpoolFixtures.jobs(6).jobs, lists: [])
        let first = try ChildProcess("farm-probe", ["hold", "--spool", spool.root, "--count", "2"])
        #expect(first.waitForLine(startingWith: "holding 2") != nil)
        let second = try ChildProcess("farm-probe", ["hold", "--spool", spool.root, "--count", "2"])
        #expect(second.waitForLine(startingWith: "holding 2") != nil)
        first.kill()
        first.wait()
        // Long before any lease: only the dead process's jobs move.
        #expect(spool.releaseJobs(ofPid: first.pid).count == 2)
        #expect(SpoolFixtures.counts(spool) == [.queued: 4, .active: 2])
        #expect(spool.activeJobs().allSatisfy { $0.owner.pid == second.pid })
        second.kill()
        second.wait()
    }
}
