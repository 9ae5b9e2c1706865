/// One line of the screen as the screens produce it: spans of text, each with a style, already fitted
/// to the width. Plain values, so every screen can be rendered and checked without a terminal;
/// `Terminal` is the only thing that turns them into output.
struct Row: Equatable, Sendable {
    var spans: [Span]

    init(_ spans: [Span]) { self.spans = spans }

    init(_ text: String, _ style: Style = .normal) { spans = [Span(text, style)] }

    /// The row as plain text (what a terminal would show, without styles).
    var text: String { spans.map(\.text).joined() }

    /// The same text with one style throughout (the selected row).
    func styled(_ style: Style) -> Row { Row(text, style) }
}

/// Part of a row drawn in one style.
struct Span: Equatable, Sendable {
    var text: String
    var style: Style

    init(_ text: String, _ style: Style = .normal) {
        self.text = text
        self.style = style
    }
}

/// How a span is drawn; the terminal maps each to attributes (and colours when it has them).
enum Style: Int32, Sendable {
    case normal = 0
    case bold = 1
    /// Column headings and the selected row.
    case reverse = 2
    case dim = 3
    /// Errors.
    case bad = 4
    /// Paused, confirmations.
    case warn = 5
    /// Finished, done.
    case good = 6
}
