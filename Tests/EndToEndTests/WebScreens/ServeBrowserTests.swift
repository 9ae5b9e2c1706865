import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// The three screens in a real browser (headless Chromium) during a real run: the lists with their
/// states and progress, updated live; a list's grid of thumbnails; the viewer. Saves a screenshot of
/// each in /tmp/farm-screenshots/ (rewritten by each run) and in $FARM_SCREENSHOTS when it is set.
@Suite(.serialized) struct ServeBrowserTests {
    @Test func threeScreensInABrowserDuringARun() throws {
        let farm = try RunningFarm()
        try farm.addImages("Photos", count: 6, width: 640, height: 480, missing: [4])
        try farm.start(workers: 2)
        #expect(poll(timeout: 120, every: 0.1) { farm.counts == [.done: 5, .failed: 1] })
        // 8 noisy photos of about 50 KB at 8 KB/s each: half a minute of downloading for 2 workers.
        try farm.addImages("Slow", count: 8, width: 300, height: 200, noisy: true, rate: 8_000)
        let photos = ListID.of(name: "Photos.json"), slow = ListID.of(name: "Slow.json")
        let serve = try ServeProcess(spool: farm.spool.root)
        let browser = try Chromium()
        defer { browser.close() }
        let shots = Screenshots()

        // Screen 1: both lists, their states, counts and bars; Pause enabled while something runs.
        try browser.navigate(serve.base + "/")
        let rows = "[...document.querySelectorAll('#lists tbody tr')].map(r => [r.dataset.id, r.cells[0].textContent,"
            + " r.cells[1].textContent, r.querySelector('.bar span').style.width, r.cells[3].textContent, r.cells[4].textContent])"
        #expect(browser.waitFor("""
            (() => { const r = \(rows); return r.length === 2
              && JSON.stringify(r[0]) === JSON.stringify(["\(photos)", "Photos.json", "Finished", "83.3%", "5/6", "1"])
              && r[1][0] === "\(slow)" && r[1][1] === "Slow.json" && r[1][2] === "Downloading..." && r[1][4].endsWith("/8"); })()
            """), "screen 1: \(String(describing: try? browser.evaluate("JSON.stringify(\(rows))")))")
        #expect(browser.waitFor("document.getElementById('workers').textContent === '2 at once: 2 workers × 1'"))
        #expect(try browser.evaluate("!document.getElementById('pause').disabled && document.getElementById('resume').disabled", as: Bool.self) == true)
        #expect(try browser.evaluate("document.getElementById('slider').value", as: String.self) == "2")
        // Live: the Slow list's count moves without a reload, pushed by the server.
        let before = try browser.evaluate("\(rows)[1][4]", as: String.self) ?? ""
        #expect(browser.waitFor("\(rows)[1][4] !== '\(before)' && \(rows)[1][3] !== '0.0%'", timeout: 60), "no live update from \(before)")
        try shots.save(browser.screenshot(), as: "screen1-lists.png")

        // Screen 2: a click on the Photos row opens its grid: five thumbnails loaded, one gray Error cell.
        try browser.evaluate("document.querySelector('tr[data-id=\"\(photos)\"]').click()")
        let cells = "[...document.querySelectorAll('#grid li:not(.add)')].map(c => [c.className, c.querySelector('.cell-text').textContent,"
            + " (c.querySelector('img') || {}).naturalWidth || 0])"
        #expect(browser.waitFor("""
            (() => { const c = \(cells); return location.hash === "#/list/\(photos)" && c.length === 6
              && c.map(x => x[1]).join() === "Done,Done,Done,Done,Error,Done"
              && c.filter(x => x[2] > 0).length === 5 && c[4][2] === 0 && c[4][0] === "error"; })()
            """), "screen 2: \(String(describing: try? browser.evaluate("JSON.stringify(\(cells))")))")
        #expect(try browser.evaluate("document.getElementById('grid-title').textContent", as: String.self) == "Photos.json")
        #expect(try browser.evaluate("getComputedStyle(document.querySelectorAll('#grid .thumb')[4]).backgroundColor", as: String.self)
            == "rgb(213, 216, 220)", "the failed cell should be gray")
        try shots.save(browser.screenshot(), as: "screen2-grid.png")

        // Screen 3: a click on the first cell opens the viewer with the full image (640 px wide).
        try browser.evaluate("document.querySelector('#grid li a').click()")
        let viewer = "[!document.getElementById('viewer').hidden, document.getElementById('viewer-image').naturalWidth,"
            + " document.getElementById('viewer-image').hidden, document.getElementById('viewer-text').textContent,"
            + " document.getElementById('viewer-caption').textContent, document.getElementById('previous').disabled,"
            + " document.getElementById('next').disabled]"
        #expect(browser.waitFor("""
            (() => { const v = \(viewer); return location.hash === "#/list/\(photos)/view/0" && v[0] && v[1] === 640
              && v[4].startsWith("1 / 6 — http://127.0.0.1:") && v[5] && !v[6]; })()
            """), "screen 3: \(String(describing: try? browser.evaluate("JSON.stringify(\(viewer))")))")
        try shots.save(browser.screenshot(), as: "screen3-viewer.png")
        // Next goes through every resource: 648 px, then on to the failed one, which is gray with its reason.
        try browser.evaluate("document.getElementById('next').click()")
        #expect(browser.waitFor("(() => { const v = \(viewer); return v[1] === 648 && v[4].startsWith('2 / 6'); })()"))
        for _ in 0..<3 { try browser.evaluate("document.getElementById('next').click()") }
        #expect(browser.waitFor("""
            (() => { const v = \(viewer); return v[4].startsWith("5 / 6") && v[2] && v[3].startsWith("Error: HTTP 404"); })()
            """), "\(String(describing: try? browser.evaluate("JSON.stringify(\(viewer))")))")
        // Cancel closes it, back on the grid.
        try browser.evaluate("document.getElementById('cancel').click()")
        #expect(browser.waitFor("""
            location.hash === "#/list/\(photos)" && document.getElementById('viewer').hidden
              && !document.getElementById('grid-screen').hidden
            """))

        // The slow list's grid while it downloads: gray cells saying Downloading xx% and Queueing.
        try browser.navigate(serve.base + "/#/list/\(slow)")
        #expect(browser.waitFor("""
            (() => { const c = \(cells); return c.length === 8 && c.some(x => /^Downloading \\d+%$/.test(x[1]) && x[2] === 0)
              && c.some(x => x[1] === "Queueing" && x[2] === 0); })()
            """, timeout: 60), "slow grid: \(String(describing: try? browser.evaluate("JSON.stringify(\(cells))")))")
        try shots.save(browser.screenshot(), as: "screen2-grid-downloading.png")

        // Held (farm get's ^C, aria2's pause of one download): the grid's header and the list's row say so,
        // live; let go, the list is Downloading... again.
        #expect(try farm.spool.held.hold(list: slow) > 0)
        #expect(browser.waitFor("document.getElementById('grid-state').textContent.startsWith('Held — ')", timeout: 30),
                "\(String(describing: try? browser.evaluate("document.getElementById('grid-state').textContent")))")
        try browser.navigate(serve.base + "/")
        #expect(browser.waitFor("\(rows).length === 2 && \(rows)[1][2] === 'Held'", timeout: 30),
                "\(String(describing: try? browser.evaluate("JSON.stringify(\(rows))")))")
        _ = try farm.spool.held.release(list: slow)
        #expect(browser.waitFor("\(rows)[1][2] === 'Downloading...'", timeout: 30),
                "\(String(describing: try? browser.evaluate("JSON.stringify(\(rows))")))")
        browser.close()
        #expect(isGone(browser.pid))
        for shot in shots.saved { try expectScreenshot(shot) }
        print("farm serve screenshots: \(shots.directory)")
    }

    /// A 1280×800 PNG with something drawn on it.
    private func expectScreenshot(_ path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(path) is not a PNG")
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1280 && height == 800, "\(path) is \(width)×\(height)")
        #expect(bytes.count > 10_000, "\(path) looks empty")
    }
}

/// Where the screenshots go, for a human to look at: /tmp/farm-screenshots/, rewritten by each run
/// (a directory per run piled up), and also $FARM_SCREENSHOTS when it is set.
final class Screenshots {
    static let shared = "/tmp/farm-screenshots"
    let directory: String
    private(set) var saved: [String] = []

    init() {
        let chosen = ProcessInfo.processInfo.environment["FARM_SCREENSHOTS"] ?? ""
        directory = chosen.isEmpty ? Self.shared : chosen
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: Self.shared, withIntermediateDirectories: true)
    }

    func save(_ png: [UInt8], as name: String) throws {
        let path = directory + "/" + name
        try Data(png).write(to: URL(fileURLWithPath: path))
        if directory != Self.shared { try Data(png).write(to: URL(fileURLWithPath: Self.shared + "/" + name)) }
        saved.append(path)
    }
}
