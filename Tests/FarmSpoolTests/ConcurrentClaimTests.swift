import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// Several processes draining one queue at once: every job claimed exactly once.
@Suite struct ConcurrentClaimTests {
    @Test func fourProcessesClaimTenThousandJobsExactlyOnce() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let enqueue = try run("farm-probe", ["enqueue", "--spool", spool.root, "--jobs", "10000", "--lists", "4"])
        try #require(enqueue.status == 0, "\(enqueue.error)")

        let workers = try (0..<4).map { n in
            try ChildProcess("farm-probe", ["drain", "--spool", spool.root, "--record", dir.appending("claims-\(n)"),
                                            "--fail-every", "10"])
        }
        for worker in workers {
            #expect(worker.wait(timeout: 300) == 0, "\(worker.standardError)")
        }
        var claims: [String] = []
        var busyWorkers = 0
        for n in 0..<4 {
            let text = try String(contentsOfFile: dir.appending("claims-\(n)"), encoding: .utf8)
            let mine = text.split(separator: "\n").map(String.init)
            claims += mine
            if !mine.isEmpty { busyWorkers += 1 }
        }
        // They really competed (each drain takes seconds; all start within milliseconds).
        #expect(busyWorkers >= 2)
        #expect(claims.count == 10000)
        #expect(Set(claims).count == 10000)
        let counts = SpoolFixtures.counts(spool)
        #expect(counts[.done, default: 0] + counts[.failed, default: 0] == 10000)
        #expect(counts[.queued] == nil && counts[.active] == nil)
        #expect(SpoolFixtures.duplicates(in: spool).isEmpty)
        #expect(SpoolFixtures.corruptFiles(spool).isEmpty)
    }
}
