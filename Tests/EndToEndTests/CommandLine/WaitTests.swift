import FarmTestSupport
import Foundation
import Testing

/// `farm wait` right after `farm add`, on a farm whose watcher polls: the watcher's summary may still be
/// the one from before the add, and must not end the wait.
@Suite struct WaitTests {
    @Test func waitRightAfterAnAddWaitsForTheNewList() throws {
        let farm = try RunningFarm()
        try farm.must(["start", "--workers", "2", "--poll", "--no-convert"])
        _ = farm.processes()
        // The polling watcher has written its summary of no list.
        #expect(poll(timeout: 30) { FileManager.default.fileExists(atPath: farm.spool.status.summary) })
        for round in 0..<3 {
            try farm.addList("Round\(round)", count: 6, size: 20_000)
            let waited = try farm.farm(["wait", "--timeout", "120"])
            #expect(waited.status == 0, "\(waited.error)")
            #expect(waited.output.contains("finished: \(round + 1) list(s), \(6 * (round + 1)) resource(s) done"),
                    "\(waited.output)")
        }
    }

    /// Work that nothing moves on says what holds it, with the command that frees it (issue 66): `farm wait`
    /// once on stderr, then waits on; `farm show` of the resource; `farm start` on a paused spool; and
    /// `farm status LIST` shows a paused download as paused, not as a "Downloading 17%" that does not move.
    @Test func waitsSayWhatHoldsTheWork() throws {
        let farm = try RunningFarm()
        let paths = try farm.addList("Held", count: 1, size: 1_200_000, rate: 100_000)

        // No farm runs on the spool.
        let idle = try farm.farm(["wait", "--timeout", "2.5"])
        #expect(idle.status == 3, "\(idle)")
        let said = "farm wait: nothing runs on this spool: farm start; waiting\n"
        #expect(idle.error.components(separatedBy: said).count == 2, "once: \(idle.error)")
        let queued = try farm.farm(["show", "Held.json", "0"])
        #expect(queued.status == 1)
        #expect(queued.error.contains("resource 0 of Held.json is queued; nothing runs on this spool: farm start"),
                "\(queued.error)")

        // Paused half-way.
        try farm.start(workers: 1)
        #expect(poll(timeout: 30, every: 0.1) { (farm.partialSizes().values.max() ?? 0) > 200_000 })
        try farm.must(["pause"])
        let paused = try farm.farm(["wait", "--timeout", "2.5"])
        #expect(paused.status == 3, "\(paused)")
        #expect(paused.error.components(separatedBy: "farm wait: paused: farm resume; waiting\n").count == 2,
                "once: \(paused.error)")
        let shown = try farm.farm(["show", "Held.json", "0"])
        #expect(shown.error.contains("resource 0 of Held.json is paused at "), "\(shown.error)")
        #expect(shown.error.contains("%: farm resume"), "\(shown.error)")
        let status = try farm.must(["status", "Held.json"])
        #expect(status.contains("paused: farm resume"), "\(status)")
        let row = status.split(separator: "\n").first { $0.hasPrefix("0 ") }
        #expect(row?.contains("Paused ") == true && row?.contains("Downloading") == false, "\(status)")

        // Stopped while paused, then started: the start says it downloads nothing.
        try farm.must(["stop"])
        let started = try farm.must(["start", "--workers", "1", "--lease", "3"])
        _ = farm.processes()
        #expect(started.contains("the farm is paused: nothing downloads until `farm resume`"), "\(started)")
        let again = try farm.must(["start"])
        #expect(again.contains("already running") && again.contains("paused"), "\(again)")

        try farm.must(["resume"])
        let finished = try farm.farm(["wait", "--timeout", "120"])
        #expect(finished.status == 0, "\(finished)")
        #expect(!finished.error.contains("farm wait:"), "nothing held it: \(finished.error)")
        try farm.expectEverythingDownloadedOnce(paths, list: "Held")
    }
}
