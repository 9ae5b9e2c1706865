import FarmStatus

/// The app's first screen: one row per list with its state, done/total, a progress bar and its
/// failures, under a row of column headings. Builds only the rows in the window. Stateless.
enum ListsScreen {
    /// Column widths for `lists` on a line of `width` cells.
    struct Columns: Equatable {
        var name: Int
        var state = 14
        var done: Int
        var bar: Int
        var percent = 4
        var failed = 6

        init(_ lists: [ListStatus], width: Int) {
            done = max(4, lists.map { "\($0.done)/\($0.total)".count }.max() ?? 0)
            let longest = lists.map { Cells.width(Cells.clean($0.shownName)) }.max() ?? 4
            // A leading space, then gaps of two cells (one between the bar and its percentage).
            let fixed = 1 + state + done + percent + failed + 9
            name = min(max(longest, 4), 32)
            bar = width - fixed - name
            if bar < 12 {
                name = max(4, name - (12 - bar))
                bar = max(3, width - fixed - name)
            }
            bar = min(bar, 42)
        }
    }

    /// The heading row and the rows of the window (`page` rows at most).
    static func rows(_ lists: [ListStatus], cursor: Cursor, width: Int, page: Int) -> [Row] {
        let columns = Columns(lists, width: width)
        let heading = " " + Cells.pad("LIST", columns.name) + "  " + Cells.pad("STATE", columns.state) + "  "
            + Cells.pad("DONE", columns.done, right: true) + "  "
            + Cells.pad("PROGRESS", columns.bar + 1 + columns.percent)
            + "  " + Cells.pad("FAILED", columns.failed, right: true)
        var rows = [Row(Cells.pad(heading, width), .reverse)]
        guard !lists.isEmpty else {
            rows.append(Row(Cells.fit(" no lists yet: `farm add` enqueues a manifest", width), .dim))
            return rows
        }
        for index in cursor.window(count: lists.count, page: page) {
            let row = self.row(lists[index], columns, width: width)
            rows.append(index == cursor.selected ? row.styled(.reverse) : row)
        }
        return rows
    }

    /// One list, fitted and padded to `width`.
    static func row(_ list: ListStatus, _ columns: Columns, width: Int) -> Row {
        let stateStyle: Style = list.state == .finished ? (list.failed > 0 ? .warn : .good) : .normal
        var spans = [
            Span(" " + Cells.pad(Cells.clean(list.shownName), columns.name) + "  "),
            Span(Cells.pad(list.shownState, columns.state), stateStyle),
            Span("  " + Cells.pad("\(list.done)/\(list.total)", columns.done, right: true) + "  "
                + Format.bar(list.progress, width: columns.bar) + " "
                + Cells.pad(Format.percent(list.progress), columns.percent, right: true) + "  "),
            Span(Cells.pad(String(list.failed), columns.failed, right: true), list.failed > 0 ? .bad : .normal),
        ]
        // Cut at the edge (a very narrow terminal), else padded so a selection bar spans the line.
        let text = spans.map(\.text).joined()
        if Cells.width(text) > width { return Row(Cells.fit(text, width)) }
        spans.append(Span(String(repeating: " ", count: width - Cells.width(text))))
        return Row(spans)
    }
}

extension ListStatus {
    /// The list's name, and the title its paged source gave it when that says more (SPEC §7).
    var shownName: String {
        guard let title = paging?.title, !title.isEmpty, title != name else { return name }
        return name + " \u{2014} " + title
    }
}
