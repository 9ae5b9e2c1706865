import FarmJSON
import FarmLists
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// `farm status`, `farm show` and `farm wait` run as a user runs them, on spools filled by the real
/// `farm add` and jobs moved by hand.
@Suite struct StatusCommandTests {
    private func farm(_ fixture: StatusFixture, _ arguments: [String], timeout: Double = 60) throws
        -> (status: Int32, output: String, error: String) {
        try run("farm", arguments + ["--spool", fixture.root], timeout: timeout)
    }

    /// Adds a manifest of `count` URLs named `name` with the real `farm add`; returns the list id.
    @discardableResult
    private func add(_ fixture: StatusFixture, _ name: String, count: Int) throws -> String {
        let manifest = fixture.appending(name)
        let urls = (0..<count).map { "http://127.0.0.1:1/\(name)/\($0).jpg" }
        try Data(JSON.encode(urls)).write(to: URL(fileURLWithPath: manifest))
        let added = try farm(fixture, ["add", manifest])
        try #require(added.status == 0, "\(added.error)")
        return ListID.of(name: name)
    }

    private func expectOneLineError(_ result: (status: Int32, output: String, error: String), containing text: String,
                                    status: Int32 = 1, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        let lines = result.error.split(separator: "\n")
        #expect(lines.count == 1, "\(result.error)", sourceLocation: sourceLocation)
        #expect(result.error.contains(text), "\(result.error)", sourceLocation: sourceLocation)
        #expect(!result.error.contains("Fatal error") && !result.error.contains("Usage"), sourceLocation: sourceLocation)
    }

    @Test func statusShowsTheListsAndOneListsResources() throws {
        let fixture = try StatusFixture()
        try add(fixture, "Set 10.json", count: 2)
        try add(fixture, "Set 2.json", count: 3)
        let list = try fixture.addList("Set 1.json", count: 4)
        try fixture.finish(list, 0)
        try fixture.activate(list, 1)
        try fixture.writeSidecar(list, 1, Sidecar(status: .downloading, bytes: 45, size: 100, changed: "t"))
        try fixture.activate(list, 2)
        try fixture.writeSidecar(list, 2, Sidecar(status: .error, error: "HTTP 404", changed: "t"))
        try fixture.complete(list, 2, failed: true)

        let table = try farm(fixture, ["status"])
        #expect(table.status == 0, "\(table.error)")
        let lines = table.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("0 at once: 0 workers × 1 (4 wanted), not paused") == true, "\(table.output)")
        let rows = lines.filter { $0.hasPrefix("Set ") }
        #expect(rows.map { $0.prefix(11).trimmingCharacters(in: .whitespaces) }
            == ["Set 1.json", "Set 2.json", "Set 10.json"])
        // One done of four, and one under way with 45 of its 100 bytes in: (1 + 0.45) / 4.
        #expect(rows[0].contains("Downloading...") && rows[0].contains("1/4") && rows[0].contains("36%"), "\(rows[0])")
        #expect(rows[1].contains("Queuing..."))
        #expect(lines.last == "spool: " + fixture.spool.root, "\(table.output)")

        let json = try farm(fixture, ["status", "--json"])
        let summary = try #require(JSON.decode(StatusDocument.self, from: Array(json.output.utf8)))
        #expect(summary.lists.map(\.name) == ["Set 1.json", "Set 2.json", "Set 10.json"])
        #expect(summary.lists[0].failed == 1 && summary.lists[0].active == 1 && summary.lists[0].queued == 1)

        let one = try farm(fixture, ["status", "Set 1", "--json"])
        #expect(one.status == 0, "\(one.error)")
        let view = try #require(JSON.decode(ListStatus.self, from: Array(one.output.utf8)))
        #expect(view.resources?.map(\.text) == ["Done", "Downloading 45%", "Error", "Queueing"])
        // Unknown values are explicit nulls in what the command prints; a queued resource's `changed`
        // is when it was queued (SPEC §4), here when it was added.
        let object = try JSONParser.parse(Array(one.output.utf8))
        // No farm runs on the fixture's spool: the view says what holds its work, as the text does (issue 66).
        #expect(view.stall == .nothingRuns && object["stall"] == .string("nothing runs on this spool: farm start"))
        guard case .array(let resources)? = object["resources"] else { throw FixtureError("no resources") }
        let queued = try #require(resources.last)
        for key in ["size", "kind", "file", "image", "error"] { #expect(queued[key] == .null, "\(key)") }
        let added = try #require(fixture.spool.list(try ListLookup.find(fixture.spool, "Set 1").id)).added
        #expect(queued["changed"] == .string(added))

        let rowsOfOne = try farm(fixture, ["status", "Set 1.json"])
        #expect(rowsOfOne.output.contains("error: HTTP 404"))
        #expect(rowsOfOne.output.contains("Downloading 45%"))
    }

    @Test func unknownListIsOneLineNamingIt() throws {
        let fixture = try StatusFixture()
        try add(fixture, "Set 1.json", count: 1)
        expectOneLineError(try farm(fixture, ["status", "Set 7"]), containing: "no list named \"Set 7\"")
        expectOneLineError(try farm(fixture, ["show", "Set 7", "0"]), containing: "`farm status`")
        // A directory that is not a spool is refused in one line too, and left alone.
        let empty = TemporaryDirectory()
        let result = try run("farm", ["status", "--spool", empty.appending("none")])
        expectOneLineError(result, containing: "no spool at")
        #expect(!FileManager.default.fileExists(atPath: empty.appending("none")))
    }

    @Test func showPrintsTheImageOrWhyThereIsNone() throws {
        let fixture = try StatusFixture()
        let list = try add(fixture, "Set 1.json", count: 5)
        let image = fixture.spool.files + "/" + list + "/0.png"
        try FileManager.default.createDirectory(atPath: fixture.spool.files + "/" + list, withIntermediateDirectories: true)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: image))
        try fixture.activate(list, 0)
        try fixture.writeSidecar(list, 0, Sidecar(status: .done, bytes: 4, size: 4, kind: "png", file: image,
                                                  image: image, changed: "t"))
        try fixture.complete(list, 0)
        try fixture.activate(list, 1)
        try fixture.writeSidecar(list, 1, Sidecar(status: .downloading, bytes: 45, size: 100, changed: "t"))
        try fixture.activate(list, 2)
        try fixture.writeSidecar(list, 2, Sidecar(status: .error, error: "HTTP 404", changed: "t"))
        try fixture.complete(list, 2, failed: true)
        try fixture.activate(list, 3)
        try fixture.writeSidecar(list, 3, Sidecar(status: .rendering, bytes: 9, size: 9, changed: "t"))

        let shown = try farm(fixture, ["show", "Set 1.json", "0"])
        #expect(shown.status == 0, "\(shown.error)")
        #expect(shown.output == image + "\n")
        expectOneLineError(try farm(fixture, ["show", "Set 1.json", "1"]),
                           containing: "resource 1 of Set 1.json is still downloading (45%)")
        expectOneLineError(try farm(fixture, ["show", "Set 1", "2"]),
                           containing: "resource 2 of Set 1.json failed: HTTP 404")
        expectOneLineError(try farm(fixture, ["show", "Set 1", "3"]), containing: "is still rendering")
        expectOneLineError(try farm(fixture, ["show", "Set 1", "4"]), containing: "resource 4 of Set 1.json is queued")
        expectOneLineError(try farm(fixture, ["show", "Set 1", "5"]), containing: "INDEX goes from 0 to 4, not 5")
    }

    @Test func waitExitsZeroOneOrThree() throws {
        let fixture = try StatusFixture()
        let nothing = try farm(fixture, ["wait"])
        #expect(nothing.status == 0, "no lists: nothing to wait for \(nothing)")

        let list = try add(fixture, "Set 1.json", count: 3)
        try fixture.finish(list, 0)
        let timedOut = try farm(fixture, ["wait", "--timeout", "0.3"])
        #expect(timedOut.status == 3, "\(timedOut)")
        // No farm runs on the fixture's spool: said once, then the time-out's line (issue 66).
        let lines = timedOut.error.split(separator: "\n")
        #expect(lines.count == 2 && lines.first == "farm wait: nothing runs on this spool: farm start; waiting",
                "\(timedOut.error)")
        #expect(lines.last?.contains("timed out after 0.3 s") == true && timedOut.error.contains("Set 1.json 1/3"),
                "\(timedOut.error)")

        // A wait in progress returns as soon as the last job finishes.
        let waiting = try ChildProcess("farm", ["wait", "--timeout", "60", "--spool", fixture.root])
        try fixture.finish(list, 1)
        try fixture.finish(list, 2)
        #expect(waiting.wait(timeout: 30) == 0, "\(waiting.standardError)")
        #expect(waiting.standardOutput.contains("finished: 1 list(s), 3 resource(s) done"))

        let other = try add(fixture, "Set 2.json", count: 1)
        try fixture.finish(other, 0, failed: true)
        expectOneLineError(try farm(fixture, ["wait", "--timeout", "10"]),
                           containing: "1 resource(s) failed (Set 2.json: 1)", status: 1)
    }
}
