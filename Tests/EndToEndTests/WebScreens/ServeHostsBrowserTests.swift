import FarmJSON
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A recursive list's hosts on its web screen (issue 64), in a real browser (headless Chromium) during a real
/// crawl of a site on two hosts: a table of each host's resources found, fetched, active and queued, pushed by
/// the server as the list grows, and at the end the counts `farm status LIST --json` gives. Saves a screenshot
/// (`Screenshots`).
@Suite(.serialized) struct ServeHostsBrowserTests {
    @Test func theListsScreenShowsItsHostsLive() throws {
        let farm = try RunningFarm()
        TwoHostSite.serve(farm.origin, pageRate: 200)
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--span-hosts", "--level", "3",
                       "--name", "site"])
        let id = ListID.of(name: "site"), port = farm.origin.port
        let serve = try ServeProcess(spool: farm.spool.root)
        let browser = try Chromium()
        defer { browser.close() }
        try browser.navigate(serve.base + "/#/list/\(id)")
        let rows = "JSON.stringify([...document.querySelectorAll('#hosts tbody tr')].map(r => [...r.cells].map(c => c.textContent)))"
            + " + (document.getElementById('hosts-frame').hidden ? ' hidden' : '')"
        func shown() -> String { (try? browser.evaluate(rows, as: String.self)) ?? "nothing" }
        // Before any worker runs: the start page alone, queued.
        #expect(browser.waitFor("\(rows) === '[[\"127.0.0.1:\(port)\",\"1\",\"0\",\"0\",\"1\"]]'"), "\(shown())")
        try farm.start(workers: 2, transfers: 2)
        // Live, without a reload: the other host comes in while the list still has work to do.
        #expect(browser.waitFor("""
            (() => { const r = JSON.parse(\(rows)); return r.length === 2 && r[1][0] === "localhost:\(port)"
              && (r[1][3] !== "0" || r[1][4] !== "0"); })()
            """, timeout: 120), "\(shown())")
        // Finished: every resource found is fetched, on each host.
        let expected = TwoHostSite.expected(farm.origin).map { [$0.host, "\($0.found)", "\($0.found)", "0", "0"] }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: expected), as: UTF8.self)
        #expect(browser.waitFor("\(rows) === '\(text)'", timeout: 180), "\(shown())")
        let shots = Screenshots()
        try shots.save(browser.screenshot(), as: "screen2-hosts.png")
        // At 390 px (the app's split screen) the table fits: nothing runs off the side (SPEC §9).
        try browser.resize(width: 390, height: 800)
        #expect(browser.waitFor("document.documentElement.scrollWidth <= document.documentElement.clientWidth"
            + " && document.body.scrollWidth <= document.documentElement.clientWidth"
            + " && document.getElementById('hosts').getBoundingClientRect().right <= document.documentElement.clientWidth"),
                "\(String(describing: try? browser.evaluate("document.getElementById('hosts').getBoundingClientRect().right")))")
        try shots.save(browser.screenshot(), as: "screen2-hosts-390.png")
        // What farm status LIST --json says.
        let json = try farm.must(["status", "site", "--json"])
        let hosts = try #require(JSON.decode(ListStatus.self, from: Array(json.utf8))?.hosts, "\(json)")
        #expect(hosts.map { [$0.host, "\($0.found)", "\($0.fetched)", "\($0.active)", "\($0.queued)"] } == expected)
    }
}
