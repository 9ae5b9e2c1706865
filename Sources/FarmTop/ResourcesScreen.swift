import FarmSpool
import FarmStatus
import FarmSystem

/// The app's second screen: one row per resource of the open list (index, kind, status text,
/// bytes/size, time since its status changed), or of those that match the filter. The list holds only
/// a window of its resources (`ListWindows`) around the rows on screen, and only those rows are
/// built, so a list of 100,000 scrolls as fast as one of ten. Stateless.
enum ResourcesScreen {
    /// Column widths for a list of `count` resources on a line of `width` cells.
    struct Columns: Equatable {
        var index: Int
        var kind = 4
        var status: Int
        var bytes = 19
        var changed = 7

        init(count: Int, width: Int) {
            index = max(3, String(max(0, count - 1)).count)
            // A leading space and four gaps of two cells.
            status = max(8, width - 1 - index - kind - bytes - changed - 8)
        }
    }

    /// How many rows the screen scrolls over: the matches of the filter, else every resource; in a
    /// list that holds them all, as many as it holds.
    static func count(_ list: ListStatus?) -> Int {
        guard let list else { return 0 }
        return list.window == nil ? list.resources?.count ?? 0 : list.windowCount
    }

    /// The heading row and the rows of the window (`page` rows at most). A row whose resource the list
    /// does not hold (its window is being read) shows as "...".
    static func rows(_ list: ListStatus?, cursor: Cursor, width: Int, page: Int, now: Double) -> [Row] {
        let resources = list?.resources ?? []
        let count = count(list), offset = list?.window?.offset ?? 0
        let columns = Columns(count: list?.window == nil ? count : list?.total ?? 0, width: width)
        let heading = " " + Cells.pad("#", columns.index, right: true) + "  " + Cells.pad("KIND", columns.kind) + "  "
            + Cells.pad("STATUS", columns.status) + "  " + Cells.pad("BYTES", columns.bytes, right: true) + "  "
            + Cells.pad("CHANGED", columns.changed, right: true)
        var rows = [Row(Cells.pad(heading, width), .reverse)]
        guard let list else {
            rows.append(Row(Cells.fit(" reading the list...", width), .dim))
            return rows
        }
        guard count > 0 else {
            let why = list.window?.query.map { "no resource matches \"\(Cells.clean($0))\"" } ?? "has no resources"
            rows.append(Row(Cells.fit(" \(Cells.clean(list.name)) \(why)", width), .dim))
            return rows
        }
        for position in cursor.window(count: count, page: page) {
            let held = position - offset
            // Filtered, a row says what matched: the resource's title (as every row of a paged list
            // does), else its URL, after its status.
            let row = held >= 0 && held < resources.count
                ? self.row(resources[held], columns, width: width, now: now, detail: list.window?.query != nil)
                : Row(Cells.pad(" ...", width), .dim)
            rows.append(position == cursor.selected ? row.styled(.reverse) : row)
        }
        return rows
    }

    /// The resource at `position` of the screen's rows (of the matches, when filtered), when the window
    /// `list` holds it.
    static func resource(at position: Int, of list: ListStatus?) -> ResourceStatus? {
        guard let list, let resources = list.resources else { return nil }
        let held = position - (list.window?.offset ?? 0)
        return resources.indices.contains(held) ? resources[held] : nil
    }

    /// Whether `list` holds every row a window of `page` rows from `cursor.top` shows, for `query`.
    static func holds(_ list: ListStatus?, cursor: Cursor, page: Int, query: String?) -> Bool {
        guard let list, let window = list.window, window.query == ListWindows.normalized(query) else { return false }
        let shown = cursor.window(count: list.windowCount, page: page)
        let held = window.offset..<(window.offset + (list.resources?.count ?? 0))
        return shown.isEmpty || (held.contains(shown.lowerBound) && held.contains(shown.upperBound - 1))
    }

    /// One resource, fitted and padded to `width`.
    static func row(_ resource: ResourceStatus, _ columns: Columns, width: Int, now: Double,
                    detail: Bool = false) -> Row {
        var status: String, style: Style
        switch resource.status {
        case .error:
            status = "Error: " + Cells.clean(resource.error ?? "unknown")
            style = .bad
        case .done:
            status = resource.text
            style = .good
        case .queued:
            status = resource.text
            style = .dim
        default:
            status = resource.text
            style = .normal
        }
        if let pieces = resource.pieces, resource.status == .downloading {
            status += " " + StatusText.pieceBar(pieces, width: min(16, max(4, columns.status / 4)))
        }
        let changed = resource.changed.flatMap(Timestamp.seconds(iso8601:)).map { Format.age(now - $0) } ?? "-"
        // A paged source's title and caption follow the status, in the column's second half (the first
        // holds "Downloading 100%"), so they stay in place as the status changes.
        let labels = [resource.title, resource.caption].compactMap { $0 }.map(Cells.clean)
            .joined(separator: " \u{2014} ")
        if detail && labels.isEmpty {
            // Filtered, a resource with no title says its URL: its end says more than its start (the
            // host is the same for the whole list).
            status += "  " + Cells.fitEnd(Cells.clean(resource.url), columns.status - Cells.width(status) - 2)
        }
        let statusWidth = labels.isEmpty ? columns.status : min(columns.status, max(18, columns.status / 2))
        var spans = [
            Span(" " + Cells.pad(String(resource.index), columns.index, right: true) + "  "
                + Cells.pad(resource.kind ?? "-", columns.kind) + "  "),
            Span(Cells.pad(status, statusWidth), style),
        ]
        if !labels.isEmpty, columns.status > statusWidth {
            spans.append(Span(Cells.pad(labels, columns.status - statusWidth), .dim))
        }
        spans += [
            Span("  " + Cells.pad(bytes(resource), columns.bytes, right: true) + "  "
                + Cells.pad(changed, columns.changed, right: true)),
        ]
        let text = spans.map(\.text).joined()
        if Cells.width(text) > width { return Row(Cells.fit(text, width)) }
        spans.append(Span(String(repeating: " ", count: width - Cells.width(text))))
        return Row(spans)
    }

    /// "1.2 MB / 4.5 MB" while downloading with a known size; the size once done; "-" while queued.
    static func bytes(_ resource: ResourceStatus) -> String {
        switch resource.status {
        case .queued:
            return "-"
        case .done, .unzipping, .rendering:
            return Format.bytes(resource.size ?? resource.bytes)
        case .downloading, .error:
            if let size = resource.size, size > 0 { return Format.bytes(resource.bytes) + " / " + Format.bytes(size) }
            return resource.bytes > 0 ? Format.bytes(resource.bytes) : "-"
        }
    }
}
