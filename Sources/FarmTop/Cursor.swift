/// A selected row in a scrolling list and the first row shown: the selection always stays on screen,
/// and the window moves only when the selection would leave it (smooth scrolling, no jumps). A value.
struct Cursor: Equatable, Sendable {
    /// Index of the selected row.
    var selected = 0
    /// Index of the first visible row.
    var top = 0

    /// Moves the selection by `delta` rows among `count`, stopping at either end.
    mutating func move(by delta: Int, count: Int) {
        select(selected + delta, count: count)
    }

    mutating func select(_ index: Int, count: Int) {
        selected = max(0, min(count - 1, index))
    }

    /// Keeps the selection inside `count` rows and inside a window of `page` rows.
    mutating func settle(count: Int, page: Int) {
        select(selected, count: count)
        let page = max(1, page)
        if selected < top { top = selected }
        if selected >= top + page { top = selected - page + 1 }
        // No empty space below the last row while there are rows above the window.
        top = max(0, min(top, count - page))
    }

    /// The indexes visible in a window of `page` rows over `count` (call `settle` first).
    func window(count: Int, page: Int) -> Range<Int> {
        let start = max(0, min(top, count))
        return start..<min(count, start + max(0, page))
    }
}
