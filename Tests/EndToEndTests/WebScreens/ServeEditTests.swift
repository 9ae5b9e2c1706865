import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Testing

/// The edits of screen 2 through the API (SPEC §9): the same verbs as `farm item`, the same guards as
/// every change, a refused edit answered with its reason and nothing changed.
@Suite(.serialized) struct ServeEditTests {
    private func ids(_ serve: ServeProcess, _ list: String) throws -> [String] {
        let reply = try serve.get("/api/lists/\(list)")
        let resources = try #require(reply.decode(ListStatus.self)?.resources, "\(reply.text)")
        #expect(resources.map(\.index) == Array(0..<resources.count))
        return resources.map(\.id)
    }

    @Test func addMoveAndDeleteThroughTheAPIWithTheGuardsOfEveryChange() throws {
        let farm = try RunningFarm()
        try farm.addList("Grid", count: 3, size: 500)
        let serve = try ServeProcess(spool: farm.spool.root)
        let list = ListID.of(name: "Grid.json")
        let start = try ids(serve, list)

        let added = try serve.post("/api/lists/\(list)/items", #"{"url": "https://example.com/new.jpg"}"#)
        #expect(added.status == 200, "\(added.text)")
        let id = try #require(added.message)
        #expect(UUID(uuidString: id) != nil && id == id.lowercased(), "\(id)")
        #expect(try ids(serve, list) == start + [id])

        let weird = "a b/c?"
        #expect(try serve.post("/api/lists/\(list)/items", #"{"url": "https://example.com/w.jpg", "id": "\#(weird)", "at": 0}"#)
            .status == 200)
        let escaped = weird.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let moved = try serve.post("/api/lists/\(list)/items/\(escaped)/move", #"{"to": 2}"#)
        #expect(moved.status == 200, "\(moved.text)")
        #expect(try ids(serve, list) == [start[0], start[1], weird, start[2], id])

        // The guards of every change: the token, the origin, the method.
        #expect(try serve.delete("/api/lists/\(list)/items/\(id)", token: "").status == 403)
        #expect(try serve.delete("/api/lists/\(list)/items/\(id)", headers: ["Origin": "http://evil.example"]).status == 403)
        #expect(try serve.post("/api/lists/\(list)/items/\(id)", "{}").status == 405)
        #expect(try ids(serve, list).count == 5, "a refused request changed the list")

        // Windows and searches see the edited order.
        let window = try serve.get("/api/lists/\(list)?offset=1&limit=3")
        let rows = try #require(window.decode(ListStatus.self)?.resources, "\(window.text)")
        #expect(rows.map(\.id) == [start[1], weird, start[2]])
        #expect(rows.map(\.index) == [1, 2, 3])
        let found = try serve.get("/api/lists/\(list)?offset=0&limit=10&q=new.jpg")
        let hits = try #require(found.decode(ListStatus.self)?.resources, "\(found.text)")
        #expect(hits.map(\.id) == [id] && hits.first?.index == 4, "\(found.text)")

        let deleted = try serve.delete("/api/lists/\(list)/items/\(escaped)")
        #expect(deleted.status == 200, "\(deleted.text)")
        #expect(try ids(serve, list) == start + [id])

        // Refused edits say why and change nothing.
        for (path, body) in [("/api/lists/\(list)/items/nope/move", #"{"to": 0}"#),
                             ("/api/lists/\(list)/items/\(id)/move", #"{"to": 9}"#),
                             ("/api/lists/\(list)/items", #"{"url": "file:///etc/passwd"}"#),
                             ("/api/lists/\(list)/items", #"{"url": "https://example.com/x.jpg", "id": "\#(id)"}"#)] {
            let reply = try serve.post(path, body)
            #expect(reply.status == 400, "\(path) \(body): \(reply.status) \(reply.text)")
            #expect(reply.error?.isEmpty == false)
        }
        #expect(try serve.delete("/api/lists/\(list)/items/nope").status == 400)
        #expect(try serve.delete("/api/lists/0123456789abcdef/items/nope").status == 404)
        #expect(try ids(serve, list) == start + [id])
    }
}
