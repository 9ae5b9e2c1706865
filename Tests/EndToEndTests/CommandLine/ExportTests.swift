import FarmJSON
import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// `farm export`: a list printed back as JSON in the shape it was added in, which `farm add` reads as
/// the same resources.
@Suite struct ExportTests {
    /// `text` parsed and written again by FarmJSON (keys sorted, numbers and strings as they were): two
    /// documents are the same JSON when these are equal.
    private func json(_ text: String) throws -> String {
        String(decoding: JSON.encode(try JSONParser.parse(Array(text.utf8))), as: UTF8.self)
    }

    private func add(_ document: String, as name: String, in dir: TemporaryDirectory, spool: String) throws {
        let path = dir.appending(name)
        try Data(document.utf8).write(to: URL(fileURLWithPath: path))
        let result = try run("farm", ["add", path, "--spool", spool])
        #expect(result.status == 0, "\(result.error)")
    }

    /// The resources of `list` as `farm status LIST --json` shows them: (id, url) by index.
    private func resources(_ list: String, spool: String) throws -> [[String]] {
        let result = try run("farm", ["status", list, "--json", "--spool", spool])
        let document = try #require(JSON.decode(ListStatus.self, from: Array(result.output.utf8)), "\(result.error)")
        let resources = try #require(document.resources)
        return resources.map { [$0.id, $0.url] }
    }

    @Test func eachShapeComesBackAsAddedAndAddsBackAsTheSameResources() throws {
        let dir = TemporaryDirectory("export")
        let spool = dir.appending("spool")
        let items = #"{"items": [{"uuid": "b7e2", "imageUrlString": "https://example.com/a.jpg"}, "#
            + #"{"uuid": "0a11", "imageUrlString": "https://example.com/b.pdf"}]}"#
        try add(items, as: "Items.json", in: dir, spool: spool)
        try add(#"["https://example.com/c.png", "https://example.com/d.zip"]"#, as: "Urls.json", in: dir, spool: spool)
        try add(#"[{"url": "https://example.com/e.jpg", "id": 7}]"#, as: "Objects.json", in: dir, spool: spool)

        let exportedItems = try run("farm", ["export", "Items", "--spool", spool])
        #expect(exportedItems.status == 0, "\(exportedItems.error)")
        #expect(try json(exportedItems.output) == json(#"{"items": [{"uuid": "b7e2", "#
            + #""imageUrlString": "https://example.com/a.jpg"}, {"uuid": "0a11", "#
            + #""imageUrlString": "https://example.com/b.pdf"}]}"#))
        let urls = try run("farm", ["export", "Urls.json", "--spool", spool])
        #expect(try json(urls.output) == json(#"["https://example.com/c.png", "https://example.com/d.zip"]"#))
        let objects = try run("farm", ["export", "Objects", "--spool", spool])
        #expect(try json(objects.output) == json(#"[{"id": "7", "url": "https://example.com/e.jpg"}]"#))

        // Another shape on demand, and the round trip: the export added as a new list has the same
        // resources, ids included, in the same order.
        let asObjects = try run("farm", ["export", "Items", "--shape", "objects", "--spool", spool])
        #expect(try json(asObjects.output) == json(#"[{"id": "b7e2", "url": "https://example.com/a.jpg"}, "#
                                                 + #"{"id": "0a11", "url": "https://example.com/b.pdf"}]"#))
        try add(exportedItems.output, as: "Items again.json", in: dir, spool: spool)
        #expect(try resources("Items again", spool: spool) == resources("Items", spool: spool))
        #expect(try resources("Items again", spool: spool).map(\.[0]) == ["b7e2", "0a11"])
    }

    @Test func refusesAnUnknownListOrShapeInOneLine() throws {
        let dir = TemporaryDirectory("export-refused")
        let spool = dir.appending("spool")
        try add(#"["https://example.com/c.png"]"#, as: "Urls.json", in: dir, spool: spool)
        let unknown = try run("farm", ["export", "Nope", "--spool", spool])
        #expect(unknown.status != 0)
        #expect(unknown.error.contains("no list") && unknown.error.split(separator: "\n").count == 1, "\(unknown.error)")
        #expect(unknown.output.isEmpty)
        let shape = try run("farm", ["export", "Urls", "--shape", "csv", "--spool", spool])
        #expect(shape.status != 0)
        #expect(shape.error.contains("csv"), "\(shape.error)")
    }
}
