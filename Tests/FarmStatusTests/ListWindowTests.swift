import FarmJSON
import FarmLists
import FarmSpool
@testable import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// Windows of a list's view (`ListWindows`): the same resources as the whole view, a window at a
/// time, and searches by id, URL, title, caption and status text, from real spool directories.
@Suite struct ListWindowTests {
    /// A list of 30 in every state: 0 downloading 45%, 1 active without a sidecar, 2..4 done, 5 and
    /// 6 failed, 7 handed back, the rest queued.
    private func mixedList(_ fixture: StatusFixture, titled: Bool = false) throws -> String {
        let list = try fixture.addList("Set 1.json", count: 30, titled: titled)
        try fixture.activate(list, 0)
        try fixture.writeSidecar(list, 0, Sidecar(status: .downloading, bytes: 4500, size: 10000,
                                                  changed: "2026-11-22T10:00:00.100Z"))
        try fixture.activate(list, 1)
        for index in 2...4 {
            try fixture.activate(list, index)
            try fixture.writeSidecar(list, index, Sidecar(status: .done, bytes: 7, size: 7, kind: "png",
                                                          changed: "2026-11-22T10:00:01.000Z"))
            try fixture.complete(list, index)
        }
        try fixture.activate(list, 5)
        try fixture.writeSidecar(list, 5, Sidecar(status: .error, error: "HTTP 404",
                                                  changed: "2026-11-22T10:00:02.000Z"))
        try fixture.complete(list, 5, failed: true)
        try fixture.finish(list, 6, failed: true)
        try fixture.activate(list, 7)
        try fixture.handBack(list, 7)
        return list
    }

    @Test func aWindowIsThatSliceOfTheWholeView() throws {
        let fixture = try StatusFixture()
        let list = try mixedList(fixture)
        let whole = try #require(ListView.build(fixture.spool, listID: list))
        let windows = ListWindows()
        for (offset, limit) in [(0, 10), (0, 30), (5, 7), (25, 10), (29, 1), (30, 5), (100, 5), (3, 0)] {
            let window = try #require(windows.window(fixture.spool, listID: list, offset: offset, limit: limit))
            let expected = Array((whole.resources ?? [])[min(30, offset)..<min(30, offset + limit)])
            #expect(window.resources == expected, "offset \(offset) limit \(limit)")
            #expect((window.total, window.active, window.done, window.failed, window.queued) == (30, 2, 3, 2, 23))
            #expect(window.window == ListStatus.Window(offset: offset, limit: limit))
        }
        // At most 500 a window, whatever is asked; counts from the summary when the caller has it.
        let summary = StatusScan.summary(fixture.spool).list(id: list)
        let clipped = try #require(windows.window(fixture.spool, listID: list, offset: 0, limit: 100_000,
                                                  counts: summary))
        #expect(clipped.window?.limit == ListWindows.maxLimit && clipped.resources?.count == 30)
        #expect(windows.window(fixture.spool, listID: "0123456789abcdef", offset: 0, limit: 10) == nil)

        // The window's JSON: the list's keys, the window's, and its resources in the shape of SPEC §4.
        func keys(_ value: JSONValue?) -> Set<String>? {
            guard case .object(let members)? = value else { return nil }
            return Set(members.map(\.key))
        }
        let json = try JSONParser.parse(JSON.encode(clipped))
        #expect(keys(json) == ["active", "done", "failed", "id", "limit", "name", "offset", "progress", "queued",
                               "resources", "state", "total"])
        let first = try #require(json["resources"].flatMap { try? [JSONValue](json: $0) }?.first)
        #expect(keys(first) == ["attempts", "bytes", "changed", "error", "file", "id", "image", "index", "kind",
                                "size", "status", "text", "thumb", "url"], "no title or caption when there is none")
    }

    @Test func searchesMatchIdsURLsTitlesCaptionsAndStatusTexts() throws {
        let fixture = try StatusFixture()
        let list = try mixedList(fixture, titled: true)
        let windows = ListWindows()
        func matches(_ query: String, offset: Int = 0, limit: Int = 500) throws -> [Int] {
            let window = try #require(windows.window(fixture.spool, listID: list, offset: offset, limit: limit,
                                                     query: query))
            #expect(window.window?.query == ListWindows.normalized(query))
            #expect(window.window?.matched != nil)
            return window.resources?.map(\.index) ?? []
        }
        #expect(try matches("r12") == [12])                  // id
        #expect(try matches("/7.JPG") == [7])                // URL, whatever the case
        #expect(try matches("  photo 2 ") == [2] + Array(20...29))  // title, trimmed
        #expect(try matches("caption 19") == [19])           // caption
        #expect(try matches("Downloading 45%") == [0])       // the owner's status of an active job
        #expect(try matches("done") == [2, 3, 4])
        #expect(try matches("ERROR") == [5, 6])
        #expect(try matches("queueing").count == 23)         // 7..29 (1 is active, with no sidecar yet)
        #expect(try matches("no such thing").isEmpty)
        // A window of the matches: positions run over the matches, `matched` counts them all.
        #expect(try matches("photo", offset: 10, limit: 5) == [10, 11, 12, 13, 14])
        let window = try #require(windows.window(fixture.spool, listID: list, offset: 28, limit: 5, query: "Photo"))
        #expect(window.window?.matched == 30 && window.resources?.map(\.index) == [28, 29])
        // An empty search is no search.
        #expect(windows.window(fixture.spool, listID: list, offset: 0, limit: 3, query: "  ")?.window?.query == nil)

        // The list's title and cover, each resource's title and caption, in the window and the whole view.
        let cover = Lists(fixture.spool).coverBase(ofList: list) + ".png"
        #expect(window.paging?.title == "The Set 1.json" && window.paging?.cover == cover)
        #expect(window.resources?.first?.title == "Photo 28" && window.resources?.first?.caption == "Caption 28")
        let whole = try #require(ListView.build(fixture.spool, listID: list))
        #expect(whole.paging?.title == "The Set 1.json" && whole.resources?[3].caption == "Caption 3")
        let json = String(decoding: JSON.encode(window), as: UTF8.self)
        for member in [#""title":"The Set 1.json""#, #""cover":"\#(cover)""#, #""matched":30"#, #""query":"photo""#,
                       #""caption":"Caption 28""#] {
            #expect(json.contains(member), "\(member) in \(json.prefix(300))")
        }
    }

    @Test func theTableIsKeptUntilItsFileChanges() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("Set 1.json", count: 3)
        let path = fixture.spool.lists.resourceTablePath(ofList: list)
        let windows = ListWindows()
        // An hour old: settled, so kept in memory.
        try age(path)
        func ids(query: String? = nil) -> [String]? {
            windows.window(fixture.spool, listID: list, offset: 0, limit: 3, query: query)?.resources?.map(\.id)
        }
        #expect(ids() == ["r0", "r1", "r2"])
        // Replaced by another file (another inode): read again.
        let lines = ["a", "b", "c"].map {
            String(decoding: JSON.encode(JobRecord(url: "http://x/\($0)", id: $0)), as: UTF8.self)
        }
        try lines.joined().write(toFile: path + ".new", atomically: false, encoding: .utf8)
        try age(path + ".new")
        #expect(rename(path + ".new", path) == 0)
        #expect(ids() == ["a", "b", "c"])
        #expect(ids(query: "B") == ["b"])
    }

    @Test func aWindowOfAHundredThousandReadsOnlyItsPart() throws {
        let fixture = try StatusFixture(inMemory: true)
        let list = try fixture.addList("Big.json", count: 100_000)
        try fixture.finish(list, 99_998)
        let windows = ListWindows()
        let window = try #require(windows.window(fixture.spool, listID: list, offset: 99_990, limit: 500))
        #expect(window.resources?.map(\.index) == Array(99_990..<100_000))
        #expect(window.resources?[8].status == .done && window.resources?[9].status == .queued)
        #expect(windows.window(fixture.spool, listID: list, offset: 0, limit: 10, query: "r99999")?.resources?.map(\.id)
            == ["r99999"])
    }

    /// Sets the modification time of `path` an hour back.
    private func age(_ path: String) throws {
        let then = Date().addingTimeInterval(-3600)
        try FileManager.default.setAttributes([.modificationDate: then], ofItemAtPath: path)
    }
}
