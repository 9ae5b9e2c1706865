import CFarmTerminal
import FarmSystem

/// The terminal while `farm top` draws on it: the only code that talks to ncurses (through the C
/// functions of CFarmTerminal). It takes the terminal over when made and gives it back as it found
/// it on `close()` or `deinit`; a crash in between is covered by CFarmTerminal's signal handlers.
///
/// Drawing writes every row into ncurses' picture of the screen and `refresh` sends the terminal
/// only the cells that differ from what it shows. One per process (ncurses has one screen), used
/// from one thread.
final class Terminal {
    private var isOpen = false
    /// Whether the locale is UTF-8; if not, anything beyond ASCII is drawn as "?".
    private let utf8: Bool

    init() throws(TopError) {
        guard cfarm_term_open() == 0 else {
            throw TopError(.unknownTerminal, Processes.environment("TERM") ?? "")
        }
        isOpen = true
        utf8 = cfarm_term_utf8() != 0
    }

    deinit { close() }

    /// Gives the terminal back: normal screen, cursor, echo. Idempotent.
    func close() {
        guard isOpen else { return }
        isOpen = false
        cfarm_term_close()
    }

    var size: (rows: Int, columns: Int) { (Int(cfarm_term_rows()), Int(cfarm_term_cols())) }

    /// Shows `rows` from the top; rows beyond them are blank.
    func draw(_ rows: [Row]) {
        guard isOpen else { return }
        let height = size.rows
        for (y, row) in rows.prefix(height).enumerated() {
            var x: Int32 = 0
            for span in row.spans where !span.text.isEmpty {
                x = cfarm_term_put(Int32(y), x, utf8 ? span.text : ascii(span.text), span.style.rawValue)
            }
            cfarm_term_clear_line(Int32(y), x)
        }
        for y in min(rows.count, height)..<max(height, 0) { cfarm_term_clear_line(Int32(y), 0) }
        cfarm_term_refresh()
    }

    /// Every key pressed since the last call, without waiting.
    func keys() -> [Key] {
        guard isOpen else { return [] }
        var keys: [Key] = []
        var character: UInt32 = 0
        while keys.count < 256 {
            let kind = cfarm_term_key(&character)
            guard let key = Self.key(kind, character) else { break }
            keys.append(key)
        }
        return keys
    }

    private static func key(_ kind: Int32, _ character: UInt32) -> Key? {
        switch UInt32(kind) {
        case CFARM_TERM_KEY_NONE.rawValue: return nil
        case CFARM_TERM_KEY_CHAR.rawValue: return Key(codePoint: character)
        case CFARM_TERM_KEY_UP.rawValue: return .up
        case CFARM_TERM_KEY_DOWN.rawValue: return .down
        case CFARM_TERM_KEY_LEFT.rawValue: return .left
        case CFARM_TERM_KEY_RIGHT.rawValue: return .right
        case CFARM_TERM_KEY_PAGE_UP.rawValue: return .pageUp
        case CFARM_TERM_KEY_PAGE_DOWN.rawValue: return .pageDown
        case CFARM_TERM_KEY_HOME.rawValue: return .home
        case CFARM_TERM_KEY_END.rawValue: return .end
        case CFARM_TERM_KEY_ENTER.rawValue: return .enter
        case CFARM_TERM_KEY_BACKSPACE.rawValue: return .backspace
        case CFARM_TERM_KEY_RESIZE.rawValue: return .resize
        default: return .other
        }
    }

    private func ascii(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.isASCII ? $0 : "?" }))
    }
}
