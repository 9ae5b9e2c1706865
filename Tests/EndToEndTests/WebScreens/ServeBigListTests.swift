import FarmJSON
import FarmLists
import FarmSpool
import FarmSystem
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// Screen 2 at scale (SPEC §9): a list of 100,000 resources, published through the spool's API with
/// URLs on a port nobody listens to, the farm not started. The window API over HTTP, then headless
/// Chromium: the first cells and how long they take, the cells the page holds while scrolling to the
/// end, the spinner, the search answered by the server, a live change, the header and cell lines, and
/// every screen at 390 and 1280 px wide with nothing running off the side. Screenshots as in
/// ServeBrowserTests.
@Suite(.serialized) struct ServeBigListTests {
    private static let count = 100_000
    /// A 1×1 PNG: the list's cover, served by farm serve from the spool.
    private static let cover = SpoolFixtures.onePixelPNG
    /// Nothing wider than the window: the page's and the body's scroll widths.
    private static let fits = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        + " && document.body.scrollWidth <= document.documentElement.clientWidth"
    private static let cells = "document.querySelectorAll('#grid li:not(.add)')"

    @Test func aHundredThousandResourcesInABrowser() throws {
        let dir = TemporaryDirectory("farm-serve-big", inMemory: true)
        let spool = try Spool(root: dir.appending("spool"))
        let published = Date()
        let big = try SpoolFixtures.publishList(spool, name: "Big.json", count: Self.count,
                                                title: "A hundred thousand photos", cover: Self.cover, titled: true)
        let plain = try SpoolFixtures.publishList(spool, name: "Plain.json", count: 3)
        // Three failed already, as a worker leaves them (the claims pick them at random).
        let claimer = Claimer(spool: spool)
        for _ in 0..<3 { try fail(try #require(try claimer.claim()), in: spool) }
        print("published 100,000 resources in \(String(format: "%.1f", Date().timeIntervalSince(published))) s")
        let serve = try ServeProcess(spool: spool.root)
        try windowsOverHTTP(serve, big)

        let browser = try Chromium()
        defer { browser.close() }
        let shots = Screenshots()
        // Any breach of the page's Content-Security-Policy (an inline script or style) is counted.
        try browser.addScriptOnNewDocument("""
            performance.setResourceTimingBufferSize(100000);
            window.violations = []; document.addEventListener("securitypolicyviolation",
              (e) => window.violations.push(e.violatedDirective + " " + e.blockedURI));
            """)
        try browser.navigate(serve.base + "/")
        #expect(browser.waitFor("document.querySelectorAll('#lists tbody tr').length === 2"))
        #expect(try browser.evaluate(Self.fits, as: Bool.self) == true, "screen 1 at 1280")

        // First cells: a fresh load of the grid's address.
        try browser.navigate("about:blank")
        let start = Date()
        try browser.navigate(serve.base + "/#/list/\(big)")
        #expect(browser.waitFor("\(Self.cells).length > 0", timeout: 30, every: 0.005))
        let wall = Date().timeIntervalSince(start)
        let inPage = try browser.evaluate("performance.now()", as: Double.self) ?? 0
        print("first cells of 100,000 after \(Int(wall * 1000)) ms"
            + " (\(Int(inPage)) ms after the page's navigation started)")
        #expect(wall < 1, "first cells after \(wall) s")
        try expectCellsShown(browser, from: 0)
        // The header (title and cover), and each cell's title and caption on one line each.
        #expect(browser.waitFor("""
            document.getElementById('list-title').textContent === "A hundred thousand photos"
              && !document.getElementById('list-header').hidden
              && document.getElementById('list-cover').naturalWidth === 1
            """), "header")
        let lines = "[...\(Self.cells)].slice(0, 2).map(c => [c.querySelector('.cell-title').textContent,"
            + " c.querySelector('.cell-caption').textContent, c.querySelector('.cell-title').getClientRects().length,"
            + " getComputedStyle(c.querySelector('.cell-caption')).textOverflow])"
        #expect(try browser.evaluate("JSON.stringify(\(lines))", as: String.self)
            == #"[["Photo 0","Caption 0",1,"ellipsis"],["Photo 1","Caption 1",1,"ellipsis"]]"#)
        #expect(try browser.evaluate(Self.fits, as: Bool.self) == true, "screen 2 at 1280")
        try shots.save(browser.screenshot(), as: "screen2-big-1280.png")

        try scrollToTheEnd(browser)
        try liveChange(browser, spool: spool, claimer: claimer)
        try search(browser, shots: shots)

        // A list without titles or captions: no header, no lines but the status.
        try browser.evaluate("location.hash = '#/list/\(plain)'")
        #expect(browser.waitFor("\(Self.cells).length === 3"))
        #expect(try browser.evaluate("""
            document.getElementById('list-header').hidden
              && !document.querySelector('#grid .cell-title, #grid .cell-caption')
            """, as: Bool.self) == true)

        try narrowScreens(browser, big: big, shots: shots)
        try browser.evaluate("location.hash = '#/list/\(big)'")
        try edits(browser, spool: spool, big: big, shots: shots)
        let violations = try browser.evaluate("JSON.stringify(window.violations)", as: String.self)
        #expect(violations == "[]", "breaches of the page's Content-Security-Policy: \(violations ?? "?")")
        browser.close()
        print("farm serve screenshots: \(shots.directory)")
    }

    /// The window API: a window at the end, the limit of 500, a search, the refusals, a stream's window.
    private func windowsOverHTTP(_ serve: ServeProcess, _ big: String) throws {
        let endReply = try serve.get("/api/lists/\(big)?offset=99990&limit=500")
        let end = try #require(endReply.decode(ListStatus.self), "\(endReply.text.prefix(500))")
        #expect((end.total, end.window?.offset, end.window?.limit) == (Self.count, 99_990, 500))
        let resources = end.resources ?? []
        #expect(resources.map(\.index) == Array(99_990..<Self.count))
        #expect(resources.first?.title == "Photo 99990")
        #expect(end.paging?.title == "A hundred thousand photos")
        #expect(try serve.get("/api/lists/\(big)?limit=100000").decode(ListStatus.self)?.resources?.count == 500)
        let found = try #require(try serve.get("/api/lists/\(big)?q=Photo%204242").decode(ListStatus.self))
        #expect(found.window?.matched == 11 && found.window?.query == "photo 4242")
        #expect(found.resources?.map(\.index) == [4242] + Array(42_420...42_429))
        for (query, words) in [("offset=x", "offset must be"), ("limit=-1", "limit must be"),
                               ("offset=1.5", "offset must be")] {
            let refused = try serve.get("/api/lists/\(big)?\(query)")
            #expect(refused.status == 400 && refused.error?.contains(words) == true, "\(query): \(refused.text)")
        }
        let stream = try ChildProcess("/usr/bin/curl", ["--silent", "--no-buffer", "--max-time", "60",
                                                        serve.base + "/api/events?list=\(big)&offset=50000&limit=2"])
        defer { stream.kill() }
        #expect(poll(timeout: 20) {
            stream.standardOutput.contains("event: list") && stream.standardOutput.hasSuffix("\n\n")
        })
        let event = stream.standardOutput.components(separatedBy: "\n\n").first { $0.contains("event: list") } ?? ""
        let data = event.split(separator: "\n").first { $0.hasPrefix("data: ") }?.dropFirst(6) ?? ""
        let window = JSON.decode(ListStatus.self, from: Array(data.utf8))
        #expect(window?.resources?.map(\.index) == [50_000, 50_001], "\(data.prefix(300))")
    }

    /// Fails `claim` as a worker does, with a reason.
    private func fail(_ claim: Claim, in spool: Spool) throws {
        let reason = Sidecar(status: .error, error: "HTTP 404",
                             changed: Timestamp.iso8601(Date().timeIntervalSince1970))
        _ = try spool.complete(claim, .failed, record: reason)
    }

    /// The cells on screen are there (none missing where the screen is) and the spinner is gone.
    private func expectCellsShown(_ browser: Chromium, from first: Int) throws {
        let shown = """
            (() => { const cells = [...\(Self.cells)].filter(c => { const r = c.getBoundingClientRect();
                       return r.bottom > 0 && r.top < innerHeight; });
                     return cells.length > 0 && document.getElementById('spinner').hidden
                       && cells.every(c => c.querySelector('.cell-text').textContent !== ''); })()
            """
        #expect(browser.waitFor(shown), "cells on screen from \(first)")
    }

    /// Down to the end in 40 jumps: the page never holds more than 500 cells (counted on every change
    /// of the grid), shows a spinner while a window loads, and ends on resource 99,999.
    private func scrollToTheEnd(_ browser: Chromium) throws {
        try browser.evaluate("""
            window.most = 0; window.spun = false;
            new MutationObserver(() => { most = Math.max(most, \(Self.cells).length); })
              .observe(document.getElementById('grid'), { childList: true });
            new MutationObserver(() => { if (!document.getElementById('spinner').hidden) spun = true; })
              .observe(document.getElementById('spinner'), { attributes: true });
            """)
        let height = try browser.evaluate("document.documentElement.scrollHeight", as: Int.self) ?? 0
        for step in 1...40 {
            try browser.evaluate("window.scrollTo(0, \(height * step / 40))")
            try expectCellsShown(browser, from: height * step / 40)
        }
        #expect(browser.waitFor("!!document.querySelector('#grid a[href$=\"/view/99999\"]')"), "resource 99,999")
        let most = try browser.evaluate("Math.max(most, \(Self.cells).length)", as: Int.self) ?? 0
        print("cells held while scrolling through 100,000: \(most) at most")
        #expect(most > 0 && most <= 500, "\(most) cells")
        #expect(try browser.evaluate("spun", as: Bool.self) == true, "no spinner while windows loaded")
        // The stream follows the window on screen, at the end of the list now.
        #expect(browser.waitFor("/&offset=99[0-9]00&/.test(state.eventsURL)"),
                "\(String(describing: try? browser.evaluate("state.eventsURL")))")
    }

    /// A resource on screen that fails meanwhile shows Error, pushed by the server.
    private func liveChange(_ browser: Chromium, spool: Spool, claimer: Claimer) throws {
        let claim = try #require(try claimer.claim())
        let index = claim.job.index
        try browser.evaluate("""
            window.scrollTo(0, document.getElementById('grid').getBoundingClientRect().top + scrollY
              + layout().rect(\(index)).y - 100)
            """)
        let cell = "document.querySelector('#grid a[href$=\"/view/\(index)\"]')"
        #expect(browser.waitFor("""
            !!\(cell) && grid.stream && grid.stream.offset <= \(index)
              && \(index) < grid.stream.offset + grid.stream.limit
            """), "cell \(index) followed")
        try fail(claim, in: spool)
        #expect(browser.waitFor("\(cell).querySelector('.cell-text').textContent === 'Error'", timeout: 15),
                "no live change of cell \(index)")
    }

    /// The search box: the server's matches, the count, the positions over the matches.
    private func search(_ browser: Chromium, shots: Screenshots) throws {
        try type("photo 4242", into: browser)
        let titles = "[...\(Self.cells)].map(c => c.querySelector('.cell-title').textContent).join()"
        #expect(browser.waitFor("""
            document.getElementById('grid-count').textContent === '11 of 100000 match'
              && \(titles) === "Photo 4242,\((42_420...42_429).map { "Photo \($0)" }.joined(separator: ","))"
            """), "\(String(describing: try? browser.evaluate(titles)))")
        let asked = "performance.getEntriesByType('resource').some(e => /[?&]q=photo%204242/.test(e.name))"
        // The grid may show the matches from the event stream's window before the fetch's timing entry is in.
        #expect(browser.waitFor(asked), "the search went to the server")
        try shots.save(browser.screenshot(), as: "screen2-big-search.png")
        try type("ERROR", into: browser)
        #expect(browser.waitFor("""
            document.getElementById('grid-count').textContent === '4 of 100000 match' && \(Self.cells).length === 4
            """))
        try type("", into: browser)
        #expect(browser.waitFor("""
            document.getElementById('grid-count').textContent === '' && \(Self.cells).length > 11
            """))
    }

    /// Puts `text` in the search box as typing does (an input event).
    private func type(_ text: String, into browser: Chromium) throws {
        try browser.evaluate("""
            { const box = document.getElementById('search'); box.value = '\(text)';
              box.dispatchEvent(new Event('input')); }
            """)
    }

    /// Edits on the 100,000: a cell dragged to the front, one deleted after its confirmation, one added
    /// at the end through the Add cell; each checked in the spool's order.
    private func edits(_ browser: Chromium, spool: Spool, big: String, shots: Screenshots) throws {
        func ids() -> [String] {
            let order = Lists(spool).order(ofList: big, total: spool.list(big)?.total ?? 0)
            let table = spool.lists.resources(ofList: big) ?? []
            return order.numbers.map { table[$0].id }
        }
        try type("", into: browser)
        try browser.evaluate("window.scrollTo(0, 0)")
        #expect(browser.waitFor("!!document.querySelector('#grid li[data-position=\"3\"]') && \(Self.cells).length > 3"))
        try browser.drag("#grid li[data-position=\"3\"] .thumb", onto: "#grid li[data-position=\"0\"] .thumb")
        #expect(poll(timeout: 30) { ids().prefix(4) == ["r3", "r0", "r1", "r2"] }, "\(ids().prefix(5))")
        #expect(browser.waitFor("document.querySelector('#grid li[data-position=\"0\"]').dataset.id === 'r3'"))

        try browser.click("#grid li[data-position=\"1\"] .delete")
        #expect(browser.waitFor("document.getElementById('confirm-text').textContent"
            + " === 'Do you really want to delete the item with identifier r0?'"))
        try browser.click("#confirm-yes")
        #expect(poll(timeout: 30) { ids().count == Self.count - 1 && ids().prefix(2) == ["r3", "r1"] })

        try browser.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        #expect(browser.waitFor("!!document.querySelector('#grid li.add')", timeout: 30))
        try browser.click("#grid li.add .add-open")
        #expect(browser.waitFor("document.activeElement === document.querySelector('#grid li.add input')"))
        try browser.type("https://example.com/the-last.jpg")
        try browser.click("#grid li.add button[type=submit]")
        #expect(poll(timeout: 30) { ids().count == Self.count })
        let last = ids().last ?? ""
        #expect(UUID(uuidString: last) != nil, "\(last)")
        #expect(browser.waitFor("document.querySelector('#grid li[data-position=\"\(Self.count - 1)\"]')?.dataset.id"
            + " === '\(last)'", timeout: 30))
        #expect(browser.waitFor("document.getAnimations().every(a => a.playState !== 'running')"))
        try shots.save(browser.screenshot(), as: "screen2-big-added.png")
    }

    /// Screens 1, 2 and 3 at 390 px (and 3 and 1 again at 1280): nothing runs off the side.
    private func narrowScreens(_ browser: Chromium, big: String, shots: Screenshots) throws {
        try browser.resize(width: 390, height: 844)
        try browser.evaluate("location.hash = '#/list/\(big)'")
        try expectCellsShown(browser, from: 0)
        #expect(browser.waitFor(Self.fits), "screen 2 at 390")
        try shots.save(browser.screenshot(), as: "screen2-big-390.png")
        try browser.evaluate("location.hash = '#/list/\(big)/view/99999'")
        let caption = "document.getElementById('viewer-caption').textContent"
        #expect(browser.waitFor("\(caption).startsWith('100000 / 100000 — Photo 99999')"))
        #expect(browser.waitFor(Self.fits), "screen 3 at 390")
        try shots.save(browser.screenshot(), as: "screen3-viewer-390.png")
        try browser.evaluate("location.hash = '#/'")
        #expect(browser.waitFor("!document.getElementById('lists-screen').hidden && \(Self.fits)"), "screen 1 at 390")
        try shots.save(browser.screenshot(), as: "screen1-lists-390.png")
        try browser.resize(width: 1280, height: 800)
        #expect(browser.waitFor(Self.fits), "screen 1 at 1280")
        try browser.evaluate("location.hash = '#/list/\(big)/view/3'")
        #expect(browser.waitFor("\(caption).startsWith('4 / 100000') && \(Self.fits)"),
                "screen 3 at 1280")
    }
}
