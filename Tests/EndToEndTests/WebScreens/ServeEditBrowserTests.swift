import FarmJSON
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// Editing a list in a real browser (SPEC §9), with real clicks, typing and a drag: the Add cell, the
/// delete button and its confirmation, drag and drop, the bigger first cell, and a refused edit that
/// leaves the grid as it was. Checked in the spool through `farm export`.
@Suite(.serialized) struct ServeEditBrowserTests {
    private static let ids = "[...document.querySelectorAll('#grid li[data-position]')]"
        + ".sort((a, b) => a.dataset.position - b.dataset.position).map(c => c.dataset.id)"

    private func spoolIDs(_ farm: RunningFarm) throws -> [String] {
        let output = try farm.must(["export", "Grid", "--shape", "objects"])
        let objects = try #require(JSON.decode([JSONValue].self, from: Array(output.utf8)), "\(output)")
        return try objects.map { try $0.decode("id") as String }
    }

    @Test func addDeleteAndDragInTheBrowser() throws {
        let farm = try RunningFarm()
        try farm.addList("Grid", count: 6, size: 500)
        let list = ListID.of(name: "Grid.json")
        let serve = try ServeProcess(spool: farm.spool.root)
        let browser = try Chromium()
        defer { browser.close() }
        let shots = Screenshots()
        try browser.navigate(serve.base + "/#/list/\(list)")
        var start = try spoolIDs(farm)
        #expect(browser.waitFor("JSON.stringify(\(Self.ids)) === '\(json(start))' && !!document.querySelector('#grid li.add')"),
                "grid: \(String(describing: try? browser.evaluate("JSON.stringify(\(Self.ids))")))")

        // The first cell is twice the size of the others.
        let sizes = try browser.evaluate("""
            [0, 1].map(p => { const r = document.querySelector(`#grid li[data-position="${p}"]`).getBoundingClientRect();
              return [r.width, r.height]; })
            """, as: [[Double]].self) ?? []
        #expect(sizes.count == 2 && abs(sizes[0][0] - 2 * sizes[1][0] - 12) < 2 && abs(sizes[0][1] - 2 * sizes[1][1] - 12) < 2,
                "\(sizes)")

        // Add: the last cell, a URL, OK.
        try browser.click("#grid li.add .add-open")
        #expect(browser.waitFor("document.activeElement === document.querySelector('#grid li.add input')"))
        try browser.type("https://example.com/added.jpg")
        try browser.click("#grid li.add button[type=submit]")
        #expect(poll(timeout: 20) { ((try? spoolIDs(farm).count) ?? 0) == 7 })
        let added = try spoolIDs(farm)[6]
        #expect(UUID(uuidString: added) != nil)
        start.append(added)
        #expect(browser.waitFor("JSON.stringify(\(Self.ids)) === '\(json(start))'"))
        // The page has its answer (the new id, said on the page) and closed the field.
        #expect(browser.waitFor("document.getElementById('message').textContent === '\(added)'"
            + " && document.querySelector('#grid li.add form').hidden"))

        // A refused add (not http(s)): the reason is shown and the grid stays as it was.
        try browser.click("#grid li.add .add-open")
        #expect(browser.waitFor("document.activeElement === document.querySelector('#grid li.add input')"))
        try browser.type("ftp://example.com/x.jpg")
        try browser.click("#grid li.add button[type=submit]")
        #expect(browser.waitFor("document.getElementById('message').className === 'error'"
            + " && document.getElementById('message').textContent.includes('not an http(s) URL')"))
        #expect(try browser.evaluate("JSON.stringify(\(Self.ids))", as: String.self) == json(start))
        try browser.click("#grid li.add .add-cancel")
        #expect(try spoolIDs(farm) == start)

        // Delete: the confirmation names the item; Cancel keeps it, Yes deletes it.
        let victim = start[2]
        try browser.click("#grid li[data-position=\"2\"] .delete")
        #expect(browser.waitFor("!document.getElementById('confirm').hidden"))
        #expect(try browser.evaluate("document.getElementById('confirm-text').textContent", as: String.self)
            == "Do you really want to delete the item with identifier \(victim)?")
        try shots.save(browser.screenshot(), as: "screen2-edit-confirm.png")
        try browser.click("#confirm-cancel")
        #expect(browser.waitFor("document.getElementById('confirm').hidden"))
        #expect(try spoolIDs(farm) == start)
        try browser.click("#grid li[data-position=\"2\"] .delete")
        try browser.click("#confirm-yes")
        start.remove(at: 2)
        #expect(poll(timeout: 20) { (try? spoolIDs(farm)) == start })
        #expect(browser.waitFor("JSON.stringify(\(Self.ids)) === '\(json(start))'"))

        // Drag the cell at 4 onto the first: it moves to 0, and the cells slide (a transition on transform).
        let dragged = start[4]
        try browser.drag("#grid li[data-position=\"4\"] .thumb", onto: "#grid li[data-position=\"0\"] .thumb")
        start.remove(at: 4)
        start.insert(dragged, at: 0)
        #expect(poll(timeout: 20) { (try? spoolIDs(farm)) == start }, "\(String(describing: try? spoolIDs(farm)))")
        #expect(browser.waitFor("JSON.stringify(\(Self.ids)) === '\(json(start))'"))
        #expect(try browser.evaluate("getComputedStyle(document.querySelector('#grid li')).transitionProperty",
                                     as: String.self) == "transform")
        #expect(browser.waitFor("location.hash === '#/list/\(list)'"), "the drag did not open the viewer")
        let still = "document.getAnimations().every(a => a.playState !== 'running')"
        #expect(browser.waitFor(still))
        try shots.save(browser.screenshot(), as: "screen2-edit-1280.png")
        try browser.resize(width: 390, height: 800)
        #expect(browser.waitFor("document.documentElement.scrollWidth <= document.documentElement.clientWidth"))
        usleep(100_000)  // the resize's render has started the cells' slides
        #expect(browser.waitFor(still))
        try shots.save(browser.screenshot(), as: "screen2-edit-390.png")
        #expect(try farm.farm(["fsck"]).status == 0)
    }

    private func json(_ ids: [String]) -> String {
        String(decoding: JSON.encode(ids).dropLast(), as: UTF8.self)
    }
}
