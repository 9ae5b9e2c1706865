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
        #expect(poll(timeout: 30) { FileManager.default.fileExists(atPath: farm.spool.summaryFile) })
        for round in 0..<3 {
            try farm.addList("Round\(round)", count: 6, size: 20_000)
            let waited = try farm.farm(["wait", "--timeout", "120"])
            #expect(waited.status == 0, "\(waited.error)")
            #expect(waited.output.contains("finished: \(round + 1) list(s), \(6 * (round + 1)) resource(s) done"),
                    "\(waited.output)")
        }
    }
}
