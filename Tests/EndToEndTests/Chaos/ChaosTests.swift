import FarmChaosReport
import FarmRegistry
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

@Suite(.serialized)
struct ChaosTests {
    /// The short chaos run of bin/test (debug build, about a minute of kills on a shared 2-core machine):
    /// every role killed (the follower of the paged list among them), nothing lost, doubled or corrupt, the
    /// paged list's items exactly the API's, syncs killed half-way and run again ending on the origin's new
    /// bytes, nothing left behind, no process left running, and the status exact again after an inotify
    /// overflow. Timing goals are the long run's business;
    /// here they only have to be sane.
    @Test func shortChaosRunLosesNothing() throws {
        let dir = TemporaryDirectory("farm-chaos-test")
        let reportPath = dir.appending("report.json")
        let child = try ChildProcess(Executables.path("farm-chaos"), [
            "--farm", Executables.path("farm"), "--seconds", "40", "--kills-per-second", "3", "--resources", "60",
            "--workers", "4", "--lease", "3", "--overflows", "1", "--drain-timeout", "300", "--seed", "6",
            "--dir", dir.appending("run"), "--report", reportPath,
        ])
        var status = child.wait(timeout: 900)
        if status == nil {
            child.kill(SIGTERM)  // farm-chaos then stops its farm
            status = child.wait(timeout: 120)
            child.kill()
        }
        #expect(status == 0, "farm-chaos failed:\n\(child.standardOutput)\n\(child.standardError)")
        let spool = try Spool(root: dir.appending("run/spool"), create: false)
        #expect(spool.registry.processes().isEmpty, "farm processes left running")

        let data = try Data(contentsOf: URL(fileURLWithPath: reportPath))
        let figures = try JSONDecoder().decode(ChaosReport.self, from: data)
        #expect(figures.finished)
        #expect(figures.lost == 0 && figures.duplicated == 0 && figures.corrupt == 0 && figures.strays == 0)
        #expect(figures.leftovers == 0 && figures.statusErrors == 0 && figures.pendingReclaims == 0)
        #expect(figures.fsck == 0, "farm fsck found faults in the final spool")
        #expect(figures.done + figures.failed == figures.resources && figures.resources > 62)
        for role in ["worker", "supervisor", "watcher", "coordinator"] {
            #expect(figures.kills[role, default: 0] > 0, "no \(role) was killed")
        }
        #expect(figures.kills.values.reduce(0, +) >= 60)
        #expect(figures.pages == 40 && figures.pagedErrors == 0, "the paged list is not exactly its API's")
        #expect(figures.siteURLs > 30 && figures.siteErrors == 0, "the mirrored site is not exactly the site")
        #expect(figures.kills["follower", default: 0] > 0, "the follower was never killed")
        let sync = try #require(figures.sync, "no sync round")
        #expect(sync.changed > 0 && sync.kills > 0 && sync.errors.isEmpty, "\(sync)")
        #expect(!figures.seenReclaims.isEmpty && (figures.seenReclaims.max() ?? 0) < 5)
        #expect((figures.unseenReclaims.max() ?? 0) < 3 + 5)
        #expect(figures.overflowsTriggered == 1)
        // Exact again within the runner's 30 s: how soon is the long run's goal (≤ 2 s). A bound of 5 s here
        // failed once under ThreadSanitizer with the whole suite on two cores (it passed run alone).
        #expect(figures.overflowRecoveries.allSatisfy { $0 != nil }, "\(figures.overflowRecoveries)")
    }
}
