/// A key press as `farm top` understands it. `Terminal` makes these from ncurses' codes; `TopState`
/// reacts to them, so the reactions are tested without a terminal. A value.
enum Key: Equatable, Sendable {
    case up, down, left, right, pageUp, pageDown, home, end, enter, escape, backspace
    /// The terminal changed size.
    case resize
    case character(Character)
    /// A key nothing here uses.
    case other

    /// A character read from the terminal: the control characters that are keys (Enter, Esc,
    /// Backspace) become those keys.
    init(codePoint: UInt32) {
        switch codePoint {
        case 10, 13: self = .enter
        case 27: self = .escape
        case 8, 127: self = .backspace
        default: self = Unicode.Scalar(codePoint).map { .character(Character($0)) } ?? .other
        }
    }
}
