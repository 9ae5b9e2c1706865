import FarmFsck
import FarmJSON
@testable import FarmLists
@testable import FarmSpool
import FarmSystem
import FarmTestSupport
import Testing

/// A paged list's pages as edits of the spool (see "Pages" in FarmLists' protocol): each page's resources
/// appended once, a page added again adding nothing, the log read from its end.
@Suite struct PageAppendTests {
    private func pagedList(_ name: String, in spool: Spool) throws -> (id: String, state: PageState) {
        let id = ListID.of(name: name)
        let source = PagedSource(first: "https://api/x", items: "/items", url: "/url", id: "/id")
        let record = ListRecord(name: name, total: 0, digest: "d", source: source.first, added: "t", paged: source)
        try spool.enqueue([NewJob](), lists: [ListRecordFile(id: id, bytes: record.encoded(),
                                                             firstPage: PageState(first: source.first).encoded())])
        return (id, try #require(Lists(spool).pageState(ofList: id)))
    }

    private func page(_ ids: [String]) -> [JobRecord] {
        ids.map { JobRecord(url: "https://x/\($0).jpg", id: $0, title: "T \($0)") }
    }

    private func next(_ state: PageState, page url: String, done: Bool = false) -> PageState {
        var next = state
        next.fetched += 1
        next.page = url
        next.next = done ? nil : url + "+"
        next.done = done
        return next
    }

    @Test func pagesAppendOnceAndAPageAddedAgainAddsNothing() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let (id, first) = try pagedList("Books", in: spool)
        #expect(spool.list(id)?.total == 0)

        let one = next(first, page: "p1")
        #expect(try Lists(spool).appendPage(page(["a", "b", "a"]), byID: true, toList: id, after: first, state: one) == 2)
        let afterOne = try #require(Lists(spool).pageState(ofList: id))
        #expect(afterOne.lines == 2 && afterOne.fetched == 1)
        // The log moved on: the same page from the old state is someone else's to add.
        #expect(try Lists(spool).appendPage(page(["c"]), byID: true, toList: id, after: first, state: one) == nil)

        // A follower killed after the commit, before its log line: the page is added again, adds nothing.
        let two = next(afterOne, page: "p2")
        #expect(try Lists(spool).appendPage(page(["c", "d"]), byID: true, toList: id, after: afterOne, state: two) == 2)
        let logPath = Lists(spool).pageLogPath(ofList: id)
        var log = try FileSystem.readFile(logPath)
        log.removeLast()
        // Its last line cut short (a writer killed mid-append), which is no line.
        log.removeSubrange((log.lastIndex(of: 0x0A)! + 10)...)
        try FileSystem.createFile(logPath + ".cut", log)
        try FileSystem.rename(logPath + ".cut", logPath)
        #expect(Lists(spool).pageState(ofList: id) == afterOne)
        #expect(try Lists(spool).appendPage(page(["c", "d"]), byID: true, toList: id, after: afterOne, state: two) == 0)

        // An item the last page had is not added twice; one without an id gets its job's name.
        let afterTwo = try #require(Lists(spool).pageState(ofList: id))
        #expect(try Lists(spool).appendPage(page(["d", "e"]) + [JobRecord(url: "https://x/f.jpg", id: "")], byID: true,
                                     toList: id, after: afterTwo, state: next(afterTwo, page: "p3", done: true)) == 2)
        let rows = try #require(spool.lists.resources(ofList: id))
        #expect(rows.map(\.id) == ["a", "b", "c", "d", "e", JobName(list: id, index: 5).raw])
        #expect(rows[0].title == "T a")
        #expect(spool.list(id)?.total == 6)
        #expect(Lists(spool).order(ofList: id, total: 0).numbers == Array(0..<6))
        #expect(SpoolFixtures.counts(spool) == [.queued: 6])
        // Done: the log is renamed, no list is followed any more.
        #expect(Lists(spool).listsFollowingPages().isEmpty)
        #expect(Lists(spool).pageState(ofList: id)?.done == true)
        #expect(try SpoolCheck(spool).run(repair: false).isClean)
    }

    @Test func jobRecordsKeepTheirBytesAndAnOrderCutShortReadsItsWholeNumbers() throws {
        #expect(JobRecord(url: "u", id: "x").encoded() == Array(#"{"id":"x","url":"u"}"#.utf8) + [0x0A])
        #expect(JobRecord(url: "u", id: "x", title: "t", caption: "c").encoded()
            == Array(#"{"caption":"c","id":"x","title":"t","url":"u"}"#.utf8) + [0x0A])
        #expect(ListOrder(bytes: [1, 0, 0, 0, 2, 0, 0, 0, 9, 9]).numbers == [1, 2])
    }
}
