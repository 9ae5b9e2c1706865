import FarmStatus

/// A whole screen, top to bottom: the header, a blank row, the body (the lists, a list's resources
/// or the help) and the footer (key hints, a message or the reset question). Stateless: everything
/// comes from the state and the model, so any frame can be rendered and checked without a terminal.
enum Frame {
    /// The smallest terminal the screens are laid out for.
    static let minimumWidth = 40
    static let minimumHeight = 8

    /// Rows of the body left for data under the heading row.
    static func page(height: Int) -> Int { max(1, height - 5) }

    /// Rows left for the resources of `list` under its hosts (`HostRows`) and the heading row.
    static func page(height: Int, list: ListStatus?) -> Int {
        max(1, page(height: height) - HostRows.count(list, height: height))
    }

    /// Exactly `height` rows, none wider than `width` cells. Call `state.settle` first.
    static func rows(state: TopState, model: TopModel, width: Int, height: Int) -> [Row] {
        guard width >= minimumWidth, height >= minimumHeight else {
            let notice = Row(Cells.fit("farm top needs \(minimumWidth)x\(minimumHeight) at least", max(0, width)))
            return [notice] + Array(repeating: Row(""), count: max(0, height - 1))
        }
        let page = page(height: height)
        var rows = Header.rows(model, state, width: width) + [Row("")]
        var body: [Row]
        if state.overlay == .help {
            body = HelpScreen.rows(width: width, height: page + 1)
        } else if state.listID != nil {
            body = HostRows.rows(model.list, width: width, height: height)
                + ResourcesScreen.rows(model.list, cursor: state.resources, width: width,
                                       page: Self.page(height: height, list: model.list), now: model.now)
        } else {
            body = ListsScreen.rows(model.summary.lists, cursor: state.lists, width: width, page: page)
        }
        body += Array(repeating: Row(""), count: max(0, page + 1 - body.count))
        rows += body
        rows.append(footer(state: state, model: model, width: width))
        return rows
    }

    static func footer(state: TopState, model: TopModel, width: Int) -> Row {
        switch state.overlay {
        case .confirmReset:
            return Row(Cells.pad("Reset: stop every process and delete every list, job and file? (y/n)", width), .warn)
        case .confirmDelete(_, let id):
            return Row(Cells.pad("Do you really want to delete the item with identifier \(Cells.clean(id))? (y/n)", width),
                       .warn)
        case .help:
            return Row(Cells.pad("any key closes the help", width), .dim)
        case nil:
            break
        }
        if let message = model.message { return Row(Cells.pad(message.text, width), message.style) }
        // A pause by the disk is no key's to end: p pauses on top of it.
        let pause = model.summary.pausedBy == .user ? "p resume" : "p pause"
        guard let id = state.listID else {
            return Row(Cells.pad("Enter open  +/- workers  \(pause)  r reload  R reset  ? help  q quit", width), .dim)
        }
        let count = model.list.map(ResourcesScreen.count) ?? model.summary.list(id: id)?.total ?? 0
        let position = count == 0 ? "" : "\(state.resources.selected + 1)/\(count)"
        if state.editingFilter {
            // The filter being typed, with a cursor, and how many resources it matches so far.
            let matches = model.list?.window?.matched.map { "\($0) match\($0 == 1 ? "" : "es")" } ?? ""
            return Row(Cells.spread("/" + Cells.clean(state.filter) + "_", matches, width), .warn)
        }
        guard state.filter.isEmpty else {
            let hints = "Esc clear  / edit  +/- workers  \(pause)  r reload  ? help  q quit"
            return Row(Cells.spread(hints, "/" + Cells.clean(state.filter) + "  " + position, width), .dim)
        }
        // R is left to the lists screen's hints (and the help), so that "q quit" still fits 80 columns.
        let hints = "Esc back  / filter  +/- workers  \(pause)  r reload  ? help  q quit"
        return Row(Cells.spread(hints, position, width), .dim)
    }
}
