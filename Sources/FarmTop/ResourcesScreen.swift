import FarmStatus

/// The app's second screen: one row per resource of the open list (index, kind, status text,
/// bytes/size, time since its status changed). Only the rows in the window are built, so a list of
/// thousands scrolls as fast as one of ten. Stateless.
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

    /// The heading row and the rows of the window (`page` rows at most).
    static func rows(_ list: ListStatus?, cursor: Cursor, width: Int, page: Int, now: Double) -> [Row] {
        let resources = list?.resources ?? []
        let columns = Columns(count: resources.count, width: width)
        let heading = " " + Cells.pad("#", columns.index, right: true) + "  " + Cells.pad("KIND", columns.kind) + "  "
            + Cells.pad("STATUS", columns.status) + "  " + Cells.pad("BYTES", columns.bytes, right: true) + "  "
            + Cells.pad("CHANGED", columns.changed, right: true)
        var rows = [Row(Cells.pad(heading, width), .reverse)]
        guard let list else {
            rows.append(Row(Cells.fit(" reading the list...", width), .dim))
            return rows
        }
        guard !resources.isEmpty else {
            rows.append(Row(Cells.fit(" \(Cells.clean(list.name)) has no resources", width), .dim))
            return rows
        }
        for index in cursor.window(count: resources.count, page: page) {
            let row = self.row(resources[index], columns, width: width, now: now)
            rows.append(index == cursor.selected ? row.styled(.reverse) : row)
        }
        return rows
    }

    /// One resource, fitted and padded to `width`.
    static func row(_ resource: ResourceStatus, _ columns: Columns, width: Int, now: Double) -> Row {
        let status: String, style: Style
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
        let changed = resource.changed.flatMap(Format.seconds(iso8601:)).map { Format.age(now - $0) } ?? "-"
        // A paged source's title and caption follow the status, in the column's second half (the first
        // holds "Downloading 100%"), so they stay in place as the status changes.
        let labels = [resource.title, resource.caption].compactMap { $0 }.map(Cells.clean)
            .joined(separator: " \u{2014} ")
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
