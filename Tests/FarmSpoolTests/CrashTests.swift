import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Testing

/// A process killed between any two steps of add, claim, complete or hand-back leaves a spool
/// that recovery makes whole: no job lost, none doubled, no list half-visible.
@Suite struct CrashTests {
    /// Runs farm-probe with a crash point armed and checks it died there (SIGKILL).
    private func crash(at failpoint: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let child = try ChildProcess("farm-probe", arguments,
                                     environment: environment.merging(["FARM_FAILPOINT": failpoint]) { $1 })
        let status = child.wait()
        #expect(status == SIGKILL && child.process.terminationReason == .uncaughtSignal,
                "farm-probe \(arguments[0]) should have died at \(failpoint): \(child.standardError)")
    }

    @discardableResult
    private func probe(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let result = try run("farm-probe", arguments, environment: environment)
        try #require(result.status == 0, "farm-probe \(arguments): \(result.error)")
        return result.output
    }

    private func stages(_ spool: Spool) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: spool.tmp)) ?? []).filter { $0.hasPrefix("stage-") }
    }

    @Test(arguments: ["add.staging@1500", "add.staged"])
    func addKilledBeforeItsCommitLeavesNothingVisible(failpoint: String) throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        try crash(at: failpoint, ["enqueue", "--spool", spool.root, "--jobs", "3000", "--lists", "3"])
        #expect(SpoolFixtures.counts(spool).isEmpty)
        #expect(spool.lists.ids().isEmpty)
        #expect(stages(spool).filter { !$0.hasSuffix(".lock") }.count == 1, "\(stages(spool))")

        try probe(["recover", "--spool", spool.root, "--lease", "0"])
        #expect(stages(spool).isEmpty)
        #expect(SpoolFixtures.counts(spool).isEmpty)
        // Running the add again does the whole job.
        try probe(["enqueue", "--spool", spool.root, "--jobs", "3000", "--lists", "3"])
        #expect(SpoolFixtures.counts(spool) == [.queued: 3000])
        #expect(spool.lists.ids().count == 3)
    }

    @Test(arguments: ["add.committed", "add.published-list@2"])
    func addKilledAfterItsCommitIsFinishedByRecovery(failpoint: String) throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        try crash(at: failpoint, ["enqueue", "--spool", spool.root, "--jobs", "3000", "--lists", "3"])
        // Every job is there; at most some lists are, and each list that is has all its jobs.
        #expect(SpoolFixtures.counts(spool) == [.queued: 3000])
        #expect(spool.lists.ids().count < 3)
        // A batch with lists not yet published keeps its stage's lock file, which is how URLSharing finds
        // them without reading queue/ (`batchesBeingAdded`).
        let pending = try FileManager.default.contentsOfDirectory(atPath: spool.queue)
            .filter { FileManager.default.fileExists(atPath: spool.lists.pending(ofBatch: $0)) }
        #expect(pending.count == 1 && Set(pending) == Set(spool.batchesBeingAdded()), "\(pending) \(stages(spool))")

        try probe(["recover", "--spool", spool.root, "--lease", "0"])
        #expect(spool.lists.ids().count == 3)
        #expect(SpoolFixtures.counts(spool) == [.queued: 3000])
        #expect(stages(spool).isEmpty)
    }

    @Test(arguments: ["claim.renamed@5", "complete.renamed@5"])
    func drainKilledMidJobLosesNothing(failpoint: String) throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        try probe(["enqueue", "--spool", spool.root, "--jobs", "100"])
        try crash(at: failpoint, ["drain", "--spool", spool.root])
        let counts = SpoolFixtures.counts(spool)
        #expect(counts.values.reduce(0, +) == 100)
        #expect(SpoolFixtures.duplicates(in: spool).isEmpty)
        if failpoint.hasPrefix("claim") {
            #expect(counts == [.queued: 95, .active: 1, .done: 4])
        } else {
            #expect(counts == [.queued: 95, .done: 5])
        }

        try probe(["recover", "--spool", spool.root, "--lease", "0"])
        try probe(["drain", "--spool", spool.root])
        #expect(SpoolFixtures.counts(spool) == [.done: 100])
        #expect(SpoolFixtures.duplicates(in: spool).isEmpty)
    }

    /// Without RENAME_NOREPLACE (FARM_FS_NO_NOREPLACE=1: the spool behaves as on FUSE) a completion is a
    /// link and an unlink. Killed between the two, its claim reclaimed: the job is done once, and the
    /// name that went back to the queue is dropped by the next claim, neither worked on again nor set aside.
    @Test func completionKilledBetweenLinkAndUnlinkIsNotDoneAgain() throws {
        let fallback = ["FARM_FS_NO_NOREPLACE": "1"]
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        try probe(["enqueue", "--spool", spool.root, "--jobs", "100"], environment: fallback)
        try crash(at: "complete.linked@5", ["drain", "--spool", spool.root], environment: fallback)
        // The fifth job has its done/ name and still its active one.
        #expect(SpoolFixtures.counts(spool) == [.queued: 95, .active: 1, .done: 5])

        try probe(["recover", "--spool", spool.root, "--lease", "0"], environment: fallback)
        #expect(SpoolFixtures.counts(spool) == [.queued: 96, .done: 5])
        let drained = try probe(["drain", "--spool", spool.root], environment: fallback)
        #expect(drained.contains("drained 95"), "the job done already was claimed to be worked on: \(drained)")
        #expect(SpoolFixtures.counts(spool) == [.done: 100])
        #expect(SpoolFixtures.duplicates(in: spool).isEmpty)
        #expect(SpoolFixtures.corruptFiles(spool).isEmpty)
        for (job, _) in spool.inventory() {
            let st = try FileSystem.lstat(spool.finishedPath(job, .done))
            #expect(st.linkCount == 1, "\(job) still has a second name")
        }
    }

    @Test func reclaimKilledHalfWayIsFinishedByTheNextOne() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        try probe(["enqueue", "--spool", spool.root, "--jobs", "10"])
        let holder = try ChildProcess("farm-probe", ["hold", "--spool", spool.root, "--count", "3"])
        #expect(holder.waitForLine(startingWith: "holding 3") != nil)
        holder.kill()
        holder.wait()

        try crash(at: "return.renamed@2", ["recover", "--spool", spool.root, "--lease", "0"])
        #expect(SpoolFixtures.counts(spool) == [.queued: 9, .active: 1])
        try probe(["recover", "--spool", spool.root, "--lease", "0"])
        #expect(SpoolFixtures.counts(spool) == [.queued: 10])
        #expect(SpoolFixtures.duplicates(in: spool).isEmpty)
    }
}
