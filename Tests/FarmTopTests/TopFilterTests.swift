import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// `farm top` on a list of 100,000 resources (the farm not started) in a tmux pane: the resources
/// screen opens and scrolls to the end as fast as on a small list, and `/` filters it by id, URL,
/// title, caption or status text (SPEC §9).
@Suite(.serialized) struct TopFilterTests {
    @Test func slashFiltersTheResourcesOfAHundredThousand() throws {
        let dir = TemporaryDirectory("farm-top-filter", inMemory: true)
        let spool = try Spool(root: dir.appending("spool"))
        try SpoolFixtures.publishList(spool, name: "Big.json", count: 100_000, titled: true)
        let claim = try #require(try Claimer(spool: spool).claim())
        let reason = Sidecar(status: .error, error: "HTTP 404", changed: "2026-11-25T10:00:00Z")
        _ = try spool.complete(claim, .failed, record: reason)
        let screen = try TmuxScreen(topCommand(spool: spool.root), environment: ["LANG": "C.UTF-8"])
        #expect(screen.waitFor { $0.contains { $0.hasPrefix(" Big.json") } }, "\(screen.text)")

        // Enter opens the list; End goes to its last resource: each within a second.
        var started = Date()
        try screen.send("Enter")
        #expect(screen.waitFor { $0.count == 24 && $0[4].hasPrefix("     0  ") && $0[23].hasSuffix("1/100000") },
                "\(screen.text)")
        let opened = Date().timeIntervalSince(started)
        started = Date()
        try screen.send("End")
        #expect(screen.waitFor { $0.contains { $0.hasPrefix(" 99999  ") } && $0[23].hasSuffix("100000/100000") },
                "\(screen.text)")
        let ended = Date().timeIntervalSince(started)
        print("farm top on 100,000 resources: opened in \(Int(opened * 1000)) ms,"
            + " at the end in \(Int(ended * 1000)) ms")
        #expect(opened < 1 && ended < 1)

        // `/` and a title: the matches, each saying what matched, and their count while typing.
        try screen.send("/")
        #expect(screen.waitFor { $0.last?.hasPrefix("/_") == true }, "\(screen.text)")
        try screen.send("-l", "photo 4242")
        #expect(screen.waitFor { lines in
            lines.last?.hasPrefix("/photo 4242_") == true && lines.last?.hasSuffix("11 matches") == true
                && lines.filter { $0.contains("Queueing") && $0.contains("Photo 4242") }.count == 11
        }, "\(screen.text)")
        keepCapture(screen.capture(), as: "top-filter")
        // Enter keeps the filter (shown with the position among the matches); Down moves among them.
        try screen.send("Enter")
        try screen.send("Down")
        #expect(screen.waitFor { $0.last?.hasSuffix("/photo 4242  2/11") == true }, "\(screen.text)")
        // `/` again edits it: a status text now.
        try screen.send("/")
        for _ in 0..<10 { try screen.send("BSpace") }
        try screen.send("-l", "error")
        #expect(screen.waitFor { lines in
            lines.last?.hasSuffix("1 match") == true
                && lines.contains { $0.hasPrefix(String(repeating: " ", count: 6 - String(claim.job.index).count)
                    + "\(claim.job.index)  ") && $0.contains("Error: HTTP 404") }
        }, "\(screen.text)")
        try screen.send("-l", "zz")
        #expect(screen.waitFor { $0.contains { $0.contains("no resource matches \"errorzz\"") } }, "\(screen.text)")
        // Esc clears it: every resource again, the selection back on the first.
        try screen.send("Escape")
        #expect(screen.waitFor { $0[4].hasPrefix("     0  ") && $0[23].hasSuffix("1/100000") }, "\(screen.text)")
        // Esc again goes back to the lists.
        try screen.send("Escape")
        #expect(screen.waitFor { $0.count > 3 && $0[3].contains("LIST") }, "\(screen.text)")
        try screen.send("q")
        #expect(screen.waitFor("top exited: 0"), "\(screen.text)")
    }
}
