/// Text measured and cut in terminal cells, not characters: a CJK character takes two cells, a
/// combining accent none. Names come from manifests, so control characters (which would move the
/// cursor or inject escape sequences) are replaced before anything is measured. Stateless.
enum Cells {
    /// What marks a cut: ASCII, so it shows on any terminal.
    static let cutMark = "~"

    /// `text` with every control character (C0, DEL, C1) replaced by "?".
    static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? "?" : $0 }))
    }

    /// How many cells `text` takes.
    static func width(_ text: String) -> Int {
        text.reduce(0) { $0 + width($1) }
    }

    /// How many cells one character takes: 0, 1 or 2.
    static func width(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if isControl(first) { return 1 }  // shown as "?"
        // An emoji presentation selector widens what it follows (❤️).
        if character.unicodeScalars.count > 1, character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) {
            return 2
        }
        if isWide(first.value) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return 1
        }
    }

    /// `text` cut to at most `width` cells; a cut ends with `cutMark`.
    static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        guard self.width(text) > width else { return text }
        var result = "", used = 0
        for character in text {
            let cells = self.width(character)
            if used + cells > width - 1 { break }
            result.append(character)
            used += cells
        }
        return result + cutMark
    }

    /// `text` cut to at most `width` cells by dropping its start; a cut begins with `cutMark`.
    static func fitEnd(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        guard self.width(text) > width else { return text }
        var kept: [Character] = [], used = 0
        for character in text.reversed() {
            let cells = self.width(character)
            if used + cells > width - 1 { break }
            kept.append(character)
            used += cells
        }
        return cutMark + String(kept.reversed())
    }

    /// `text` fitted to `width` cells and padded with spaces to exactly that many (on the left when
    /// `right` is set, for numbers).
    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fitted = fit(text, width)
        let gap = String(repeating: " ", count: max(0, width - self.width(fitted)))
        return right ? gap + fitted : fitted + gap
    }

    /// `left` and `right` on one line of `width` cells, `right` flush with the edge; `left` is cut
    /// first when they do not both fit.
    static func spread(_ left: String, _ right: String, _ width: Int) -> String {
        let right = fit(right, width)
        let room = width - self.width(right)
        guard room > 1 else { return pad(right, width, right: true) }
        return pad(left, room - 1) + " " + right
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
    }

    /// East Asian wide and fullwidth ranges, and the emoji blocks terminals draw two cells wide.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
