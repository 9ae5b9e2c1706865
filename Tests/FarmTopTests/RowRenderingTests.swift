import FarmDesired
import FarmSpool
import FarmSystem
import FarmStatus
import Testing

@testable import FarmTop

/// The rows the screens produce, without a terminal: bars, numbers, cutting to width, layouts.
@Suite struct RowRenderingTests {
    @Test func progressBarsFillTheirWidthExactly() {
        #expect(Format.bar(0, width: 12) == "[..........]")
        #expect(Format.bar(0.5, width: 12) == "[#####.....]")
        #expect(Format.bar(1, width: 12) == "[##########]")
        #expect(Format.bar(.nan, width: 12) == "[..........]")
        for width in 3...40 { #expect(Format.bar(0.37, width: width).count == width) }
        #expect(Format.percent(0.999) == "99%")
        #expect(Format.percent(1) == "100%")
    }

    @Test func bytesRatesAndAges() {
        #expect(Format.bytes(0) == "0 B")
        #expect(Format.bytes(999) == "999 B")
        #expect(Format.bytes(1500) == "1.5 kB")
        #expect(Format.bytes(400_000) == "400.0 kB")
        #expect(Format.bytes(999_960) == "1.0 MB")
        #expect(Format.bytes(12_345_678) == "12.3 MB")
        #expect(Format.byteRate(2_340_000) == "2.3 MB/s")
        #expect(Format.byteRate(nil) == "-- MB/s")
        #expect(Format.rate(1.25, unit: "files/s") == "1.3 files/s")
        #expect(Format.age(0.4) == "now")
        #expect(Format.age(59) == "59s")
        #expect(Format.age(61) == "1m")
        #expect(Format.age(7300) == "2h")
        #expect(Format.age(200_000) == "2d")
    }

    @Test func etaFormatting() {
        #expect(Format.eta(nil) == "--")
        #expect(Format.eta(.infinity) == "--")
        #expect(Format.eta(0) == "0s")
        #expect(Format.eta(44.2) == "45s")
        #expect(Format.eta(185) == "3m05s")
        #expect(Format.eta(7620) == "2h07m")
        #expect(Format.eta(3 * 86400 + 4 * 3600) == "3d04h")
        #expect(Format.eta(1e9) == ">99d")
    }

    @Test func timestampsParse() {
        #expect(Timestamp.seconds(iso8601: "1970-01-01T00:00:10.500Z") == 10.5)
        #expect(Timestamp.seconds(iso8601: "2026-11-22T10:00:00.120Z").map { abs($0 - 1_795_341_600.12) < 0.001 } == true)
        #expect(Timestamp.seconds(iso8601: "2026-11-22T10:00:00Z") == 1_795_341_600)
        #expect(Timestamp.seconds(iso8601: "yesterday") == nil)
        #expect(Timestamp.seconds(iso8601: "2026-11-22T10:0x:00.120Z") == nil)
    }

    @Test func textIsCutToCellsNotCharacters() {
        #expect(Cells.fit("Set 1.json", 20) == "Set 1.json")
        #expect(Cells.fit("A very long list name.json", 10) == "A very lo~")
        #expect(Cells.width(Cells.fit("A very long list name.json", 10)) == 10)
        #expect(Cells.fit("abc", 0) == "")
        // Two cells per ideograph: 5 of them need 10 cells.
        #expect(Cells.width("画像一覧表") == 10)
        #expect(Cells.fit("画像一覧表", 6) == "画像~")
        // A combining accent takes no cell.
        #expect(Cells.width("Cafe\u{301}") == 4)
        #expect(Cells.pad("7", 3, right: true) == "  7")
        #expect(Cells.pad("画像", 6) == "画像  ")
        #expect(Cells.spread("left", "right", 20) == "left           right")
        #expect(Cells.spread("a long left part", "right", 12) == "a lon~ right")
    }

    @Test func controlCharactersFromManifestsAreDefused() {
        let name = "evil\u{1B}[2Jname\u{7}.json"
        #expect(Cells.clean(name) == "evil?[2Jname?.json")
        let list = ListStatus(id: "0000000000000001", name: name, total: 1, active: 0, done: 0, failed: 0)
        let row = ListsScreen.row(list, ListsScreen.Columns([], width: 80), width: 80)
        #expect(!row.text.contains("\u{1B}"))
    }

    @Test func listRowsFitEveryWidth() {
        let lists = [
            ListStatus(id: "0000000000000001", name: "Set 1.json", total: 10, active: 2, done: 3, failed: 0),
            ListStatus(id: "0000000000000002", name: "A list with a very long name indeed, longer than any column.json",
                       total: 12345, active: 0, done: 12000, failed: 345),
            ListStatus(id: "0000000000000003", name: "Queued.json", total: 4, active: 0, done: 0, failed: 0),
        ]
        for width in [40, 60, 80, 132] {
            let rows = ListsScreen.rows(lists, cursor: Cursor(), width: width, page: 10)
            #expect(rows.count == 4)
            for row in rows { #expect(Cells.width(row.text) == width, "\(width): \(row.text)") }
        }
        let rows = ListsScreen.rows(lists, cursor: Cursor(), width: 80, page: 10).map(\.text)
        #expect(rows[1].hasPrefix(" Set 1.json"))
        #expect(rows[1].contains("Downloading..."))
        #expect(rows[1].contains("3/10"))
        #expect(rows[1].contains("30%"))
        #expect(rows[2].contains("Finished") && rows[2].hasSuffix("345"))
        #expect(rows[3].contains("Queuing...") && rows[3].contains("0%"))

        // A held list says so; a finished one, held or not, is Finished.
        var held = lists
        held[0].held = true
        held[1].held = true
        let heldRows = ListsScreen.rows(held, cursor: Cursor(), width: 80, page: 10).map(\.text)
        #expect(heldRows[1].contains("Held") && !heldRows[1].contains("Downloading..."))
        #expect(heldRows[2].contains("Finished"))
    }

    @Test func resourceRowsShowStatusBytesAndAge() {
        let now = 1_795_341_600.0
        let resources = [
            ResourceStatus(index: 0, id: "a", url: "http://x/a", status: .downloading, bytes: 4_500_000,
                           size: 10_000_000, kind: nil, changed: "2026-11-22T09:59:57.000Z"),
            ResourceStatus(index: 1, id: "b", url: "http://x/b", status: .queued),
            ResourceStatus(index: 2, id: "c", url: "http://x/c", status: .error, bytes: 10, kind: nil,
                           error: "HTTP 404", changed: "2026-11-22T09:58:00.000Z"),
            ResourceStatus(index: 3, id: "d", url: "http://x/d", status: .done, bytes: 2_000, size: 2_000,
                           kind: "png", changed: "2026-11-22T07:00:00.000Z"),
            ResourceStatus(index: 4, id: "e", url: "http://x/e", status: .unzipping, bytes: 3_000, size: 3_000,
                           kind: "zip", changed: "2026-11-22T10:00:00.000Z"),
        ]
        let list = ListStatus(id: "0000000000000001", name: "Mixed.json", total: 5, active: 2, done: 1, failed: 1,
                              resources: resources)
        let rows = ResourcesScreen.rows(list, cursor: Cursor(), width: 80, page: 10, now: now).map(\.text)
        #expect(rows.count == 6)
        for row in rows { #expect(Cells.width(row) == 80, "\(row)") }
        #expect(rows[1].contains("Downloading 45%") && rows[1].contains("4.5 MB / 10.0 MB") && rows[1].hasSuffix("3s"))
        #expect(rows[2].contains("Queueing") && rows[2].hasSuffix("-"))
        #expect(rows[3].contains("Error: HTTP 404") && rows[3].hasSuffix("2m"))
        #expect(rows[4].contains("png") && rows[4].contains("Done") && rows[4].contains("2.0 kB"))
        #expect(rows[4].hasSuffix("3h"))
        #expect(rows[5].contains("zip") && rows[5].contains("Unzipping") && rows[5].hasSuffix("now"))
    }

    @Test func aResourceInPiecesShowsItsPiecesAsABarOfSegments() {
        var resource = ResourceStatus(index: 0, id: "a", url: "http://x/a", status: .downloading, bytes: 40,
                                      size: 100)
        resource.pieces = PieceCounts(done: 3, active: 2, total: 8)
        let list = ListStatus(id: "0000000000000001", name: "Big.json", total: 1, active: 1, done: 0, failed: 0,
                              resources: [resource])
        let row = ResourcesScreen.rows(list, cursor: Cursor(), width: 100, page: 10, now: 0).map(\.text)[1]
        #expect(row.contains("Downloading 40% [###>>...]"), "\(row)")
        #expect(Cells.width(row) == 100)
        // Many pieces: a segment stands for several, and a kind with any piece keeps one.
        #expect(StatusText.pieceBar(PieceCounts(done: 1, active: 2, total: 64), width: 16) == "[#>...............]")
        #expect(StatusText.pieceBar(PieceCounts(done: 32, active: 0, total: 64), width: 16) == "[########........]")
        resource.status = .done
        let done = ResourcesScreen.rows(ListStatus(id: "0000000000000001", name: "Big.json", total: 1, active: 0,
                                                   done: 1, failed: 0, resources: [resource]),
                                        cursor: Cursor(), width: 100, page: 10, now: 0).map(\.text)[1]
        #expect(!done.contains("["), "\(done)")
    }

    @Test func pagedListsShowTheirTitleAndResourcesTheirTitleAndCaption() {
        var resource = ResourceStatus(index: 0, id: "b0", url: "http://x/a.jpg", status: .downloading, bytes: 10,
                                      size: 100)
        resource.title = "Dune"
        resource.caption = "By: Frank Herbert"
        resource.labelled = true
        let paging = Paging(fetched: 2, done: false, title: "The Books", showsTitle: true)
        let list = ListStatus(id: "0000000000000001", name: "Books", total: 1, active: 1, done: 0, failed: 0,
                              resources: [resource], paging: paging)
        #expect(list.state != .finished)
        let rows = ResourcesScreen.rows(list, cursor: Cursor(), width: 100, page: 10, now: 0).map(\.text)
        #expect(rows[1].contains("Downloading 10%") && rows[1].contains("Dune \u{2014} By: Frank Herbert"), "\(rows[1])")
        #expect(Cells.width(rows[1]) == 100)
        let listRows = ListsScreen.rows([list], cursor: Cursor(), width: 100, page: 10).map(\.text)
        #expect(listRows[1].contains("Books \u{2014} The Books"), "\(listRows[1])")
    }

    @Test func onlyTheVisibleWindowOfAHugeListIsBuilt() {
        let resources = (0..<20_000).map { ResourceStatus(index: $0, id: "r\($0)", url: "", status: .queued) }
        let list = ListStatus(id: "0000000000000001", name: "Huge.json", total: resources.count, active: 0, done: 0,
                              failed: 0, resources: resources)
        var state = TopState(screen: .resources(listID: list.id))
        for _ in 0..<3 { _ = state.handle(.pageDown, ids: [list.id], resourceCount: resources.count, page: 19) }
        state.settle(listCount: 1, resourceCount: resources.count, page: 19)
        let rows = ResourcesScreen.rows(list, cursor: state.resources, width: 80, page: 19, now: 0)
        #expect(rows.count == 20)
        #expect(rows[1].text.hasPrefix("    36  "), "\(rows[1].text)")
        #expect(rows[19].text.hasPrefix("    54  "))
        #expect(rows[19].spans.allSatisfy { $0.style == .reverse }, "the selected row is the last one shown")
    }

    /// Issue 64: a recursive list's resources screen opens with a row per host, and the resources get the
    /// rows they leave; many hosts take a third of the screen at most, the last row saying how many are left.
    @Test func aRecursiveListsHostsTopItsResources() {
        let resources = (0..<40).map { ResourceStatus(index: $0, id: "r\($0)", url: "", status: .queued) }
        var list = ListStatus(id: "0000000000000001", name: "site", total: 40, active: 2, done: 30, failed: 1,
                              resources: resources)
        list.hosts = [HostCounts(host: "127.0.0.1:8080", found: 30, fetched: 25, active: 2, queued: 3),
                      HostCounts(host: "cdn.example.org", found: 10, fetched: 6, active: 0, queued: 4)]
        let summary = StatusDocument(updated: "", paused: false, workers: Workers(desired: 2, running: 2), lists: [list])
        let model = TopModel(spool: "/spool", summary: summary, list: list, now: 0)
        var state = TopState(screen: .resources(listID: list.id))
        let page = Frame.page(height: 24, list: list)
        #expect(page == Frame.page(height: 24) - 3)
        state.settle(listCount: 1, resourceCount: 40, page: page)
        let rows = Frame.rows(state: state, model: model, width: 80, height: 24).map(\.text)
        #expect(rows.count == 24)
        // Every row but the blank one under the header fills the width.
        for row in rows where !row.isEmpty { #expect(Cells.width(row) == 80, "\(row)") }
        #expect(rows[3].hasPrefix(" HOST ") && rows[3].contains("FOUND  FETCHED   ACTIVE   QUEUED"), "\(rows[3])")
        #expect(rows[4].hasPrefix(" 127.0.0.1:8080 ") && rows[4].hasSuffix("     30       25        2        3"),
                "\(rows[4])")
        #expect(rows[5].hasPrefix(" cdn.example.org ") && rows[5].hasSuffix("     10        6        0        4"))
        #expect(rows[6].contains("STATUS") && rows[7].hasPrefix("   0  "), "\(rows[6]) \(rows[7])")
        #expect(rows[22].hasPrefix("  15  "), "the last resource row: \(rows[22])")

        list.hosts = (0..<20).map { HostCounts(host: "h\($0).test", found: 1, fetched: 0, active: 0, queued: 1) }
        #expect(HostRows.count(list, height: 24) == 6)
        let many = HostRows.rows(list, width: 80, height: 24).map(\.text)
        #expect(many.count == 6 && many[4].hasPrefix(" h3.test ") && many[5].hasPrefix(" and 16 more host(s)"), "\(many)")
        // No hosts, no rows: a list that is not recursive keeps its whole page.
        list.hosts = nil
        #expect(Frame.page(height: 24, list: list) == Frame.page(height: 24))
    }

    @Test func aWholeFrameIsExactly80By24() {
        let lists = (1...30).map {
            ListStatus(id: String(repeating: "0", count: 14) + ($0 < 10 ? "0\($0)" : "\($0)"), name: "Set \($0).json",
                       total: 100, active: 2, done: $0, failed: $0 % 3)
        }
        let summary = StatusDocument(updated: "", paused: true, workers: Workers(desired: 6, running: 5), lists: lists)
        let model = TopModel(spool: "/a/very/long/path/to/some/spool/directory/that/does/not/fit/anywhere/at/all/spool",
                             summary: summary, list: nil, filesPerSecond: 1.5, bytesPerSecond: 2_300_000, eta: 185,
                             now: 0, message: nil)
        var state = TopState()
        state.settle(listCount: lists.count, resourceCount: 0, page: Frame.page(height: 24))
        let rows = Frame.rows(state: state, model: model, width: 80, height: 24)
        #expect(rows.count == 24)
        for row in rows { #expect(Cells.width(row.text) <= 80, "\(row.text)") }
        #expect(rows[0].text.hasPrefix("farm top  /a/very"))
        #expect(rows[0].text.hasSuffix("5 at once: 5 workers × 1 (6 wanted)  PAUSED"), "\(rows[0].text)")
        #expect(rows[1].text.hasPrefix("\(lists.reduce(0) { $0 + $1.done })/3000 done"))
        #expect(rows[1].text.hasSuffix("1.5 files/s  2.3 MB/s  ETA paused"))
        #expect(rows[3].text.contains("LIST"))
        #expect(rows[4].text.hasPrefix(" Set 1.json"))
        #expect(rows[22].text.hasPrefix(" Set 19.json"))
        #expect(rows[23].text.contains("p resume"))
        // Too small a terminal says so instead of drawing garbage.
        #expect(Frame.rows(state: state, model: model, width: 30, height: 5).map(\.text)
            == ["farm top needs 40x8 at least", "", "", "", ""])
        #expect(Frame.rows(state: state, model: model, width: 20, height: 5).first?.text == "farm top needs 40x8~")
    }

    @Test func theHeaderShowsTheBandwidthCapWhenThereIsOne() {
        let summary = StatusDocument(updated: "", paused: false,
                                     workers: Workers(desired: 2, running: 2, limitRate: 2 << 20), lists: [])
        let model = TopModel(spool: "/spool", summary: summary, list: nil, filesPerSecond: nil, bytesPerSecond: nil,
                             eta: nil, now: 0, message: nil)
        var state = TopState()
        state.settle(listCount: 0, resourceCount: 0, page: Frame.page(height: 24))
        let rows = Frame.rows(state: state, model: model, width: 80, height: 24)
        #expect(rows[0].text.hasSuffix("2 at once: 2 workers × 1  cap 2.1 MB/s  running"), "\(rows[0].text)")
    }

    @Test func aPauseByTheDiskSaysHowShortItIsAndLeavesPToPause() {
        let summary = StatusDocument(updated: "", paused: true, pausedBy: .disk,
                                     disk: DiskRoom(free: 3 << 20, minFree: 6 << 20),
                                     workers: Workers(desired: 2, running: 2), lists: [])
        let model = TopModel(spool: "/spool", summary: summary, list: nil, filesPerSecond: nil, bytesPerSecond: nil,
                             eta: nil, now: 0, message: nil)
        var state = TopState()
        state.settle(listCount: 0, resourceCount: 0, page: Frame.page(height: 24))
        let rows = Frame.rows(state: state, model: model, width: 80, height: 24)
        #expect(rows[0].text.hasSuffix("2 at once: 2 workers × 1  PAUSED: disk 3.0 MiB free < 6.0 MiB"), "\(rows[0].text)")
        #expect(rows[23].text.contains("p pause"), "no key ends a pause by the disk: \(rows[23].text)")
        let line = PlainLine.text(summary, throughput: Throughput(), time: 0)
        #expect(line.contains("; paused: disk 3.0 MiB free < 6.0 MiB"), "\(line)")
    }
}
