/// The links of a stylesheet as GNU wget finds them (css-url.c over its flex scanner css.l): every
/// `url(...)` token, and the string or `url()` right after `@import` (only blanks between). Tokens are
/// taken as the scanner takes them, so `url(` counts only at a token's start (`xurl(a)` is a function,
/// `5url(a)` a dimension), comments and strings hide what is inside them, and the text of a URL is used
/// as written: no CSS escapes undone.
enum CSSLinks {
    /// A link's text and where it starts in `bytes`.
    struct Reference {
        var text: String
        var position: Int
        var isImport: Bool
    }

    private enum Token: Equatable {
        case blank, comment, string, badString, uri, badURI, importKeyword, other
    }

    static func references(in bytes: [UInt8], _ range: Range<Int>) -> [Reference] {
        var found: [Reference] = []
        var p = range.lowerBound
        let end = range.upperBound
        while p < end {
            let start = p
            let token = next(bytes, &p, end)
            if token == .importKeyword {
                var tokenStart = p
                var following = next(bytes, &p, end)
                while following == .blank && p < end {
                    tokenStart = p
                    following = next(bytes, &p, end)
                }
                if following == .string {
                    // The quotes cut off, nothing unescaped.
                    found.append(Reference(text: String(decoding: bytes[(tokenStart + 1)..<(p - 1)], as: UTF8.self),
                                           position: tokenStart + 1, isImport: true))
                } else if following == .uri, let inside = uriText(bytes, tokenStart..<p) {
                    found.append(Reference(text: inside.text, position: inside.position, isImport: true))
                }
            } else if token == .uri, let inside = uriText(bytes, start..<p) {
                found.append(Reference(text: inside.text, position: inside.position, isImport: false))
            }
        }
        return found
    }

    /// wget's `get_uri_string`: inside `url(` `)`, blanks trimmed, then one quote at each end when the first
    /// byte is a quote; nil when nothing is left.
    private static func uriText(_ bytes: [UInt8], _ token: Range<Int>) -> (text: String, position: Int)? {
        var from = token.lowerBound + 4, to = token.upperBound - 1
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        while from < to && isSpace(bytes[from]) { from += 1 }
        guard from < to else { return nil }
        while to > from && isSpace(bytes[to - 1]) { to -= 1 }
        if to - from >= 2 && (bytes[from] == 0x27 || bytes[from] == 0x22) {
            from += 1
            to -= 1
        }
        guard from < to else { return nil }
        return (String(decoding: bytes[from..<to], as: UTF8.self), from)
    }

    // MARK: The scanner, as much of css.l as decides where tokens start.

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        byte == 0x5F || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A) || byte >= 0xA0
    }

    private static func isNameChar(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// A backslash escape at `p` (css.l's {escape}): its length, or 0.
    private static func escapeLength(_ bytes: [UInt8], _ p: Int, _ end: Int) -> Int {
        guard p + 1 < end, bytes[p] == 0x5C else { return 0 }
        let next = bytes[p + 1]
        if next == 0x0A || next == 0x0D || next == 0x0C { return 0 }
        guard WebURL.isHex(next) else { return 2 }
        var length = 1
        while length < 7 && p + length < end && WebURL.isHex(bytes[p + length]) { length += 1 }
        if p + length < end {
            if bytes[p + length] == 0x0D && p + length + 1 < end && bytes[p + length + 1] == 0x0A {
                length += 2
            } else if isBlank(bytes[p + length]) {
                length += 1
            }
        }
        return length
    }

    /// Past name characters and escapes from `p`.
    private static func skipName(_ bytes: [UInt8], _ p: inout Int, _ end: Int) {
        while p < end {
            if isNameChar(bytes[p]) {
                p += 1
            } else if case let length = escapeLength(bytes, p, end), length > 0 {
                p += length
            } else {
                return
            }
        }
    }

    /// A string at `p` (on its quote): `.string` with `p` past the closing quote, or `.badString` with `p`
    /// at the line break (or the end) that cut it.
    private static func string(_ bytes: [UInt8], _ p: inout Int, _ end: Int) -> Token {
        let quote = bytes[p]
        p += 1
        while p < end {
            let byte = bytes[p]
            if byte == quote {
                p += 1
                return .string
            } else if byte == 0x0A || byte == 0x0D || byte == 0x0C {
                return .badString
            } else if byte == 0x5C {
                if p + 1 < end && bytes[p + 1] == 0x0D && p + 2 < end && bytes[p + 2] == 0x0A {
                    p += 3
                } else if p + 1 < end && (bytes[p + 1] == 0x0A || bytes[p + 1] == 0x0D || bytes[p + 1] == 0x0C) {
                    p += 2
                } else if case let length = escapeLength(bytes, p, end), length > 0 {
                    p += length
                } else {
                    p += 1  // a backslash at the very end: part of the bad string
                    return .badString
                }
            } else {
                p += 1
            }
        }
        return .badString
    }

    private static func next(_ bytes: [UInt8], _ p: inout Int, _ end: Int) -> Token {
        let byte = bytes[p]
        if isBlank(byte) {
            while p < end && isBlank(bytes[p]) { p += 1 }
            return .blank
        }
        if byte == 0x2F && p + 1 < end && bytes[p + 1] == 0x2A {
            // A comment, or an unclosed one running to the end.
            var q = p + 2
            while q + 1 < end && !(bytes[q] == 0x2A && bytes[q + 1] == 0x2F) { q += 1 }
            p = q + 1 < end ? q + 2 : end
            return .comment
        }
        if byte == 0x22 || byte == 0x27 { return string(bytes, &p, end) }
        if matches(bytes, p, end, "url(") { return uri(bytes, &p, end) }
        if matches(bytes, p, end, "@import") {
            p += 7
            return .importKeyword
        }
        let identStart = byte == 0x2D ? p + 1 : p
        if identStart < end && (isNameStart(bytes[identStart]) || escapeLength(bytes, identStart, end) > 0) {
            p = identStart
            skipName(bytes, &p, end)
            if p < end && bytes[p] == 0x28 { p += 1 }  // a function
            return .other
        }
        if isDigit(byte) || (byte == 0x2E && p + 1 < end && isDigit(bytes[p + 1])) {
            while p < end && isDigit(bytes[p]) { p += 1 }
            if p + 1 < end && bytes[p] == 0x2E && isDigit(bytes[p + 1]) {
                p += 1
                while p < end && isDigit(bytes[p]) { p += 1 }
            }
            // A dimension (5px, 5url) or a percentage.
            let unitStart = p < end && bytes[p] == 0x2D ? p + 1 : p
            if unitStart < end && (isNameStart(bytes[unitStart]) || escapeLength(bytes, unitStart, end) > 0) {
                p = unitStart
                skipName(bytes, &p, end)
            } else if p < end && bytes[p] == 0x25 {
                p += 1
            }
            return .other
        }
        if byte == 0x23 && p + 1 < end && (isNameChar(bytes[p + 1]) || escapeLength(bytes, p + 1, end) > 0) {
            p += 1
            skipName(bytes, &p, end)
            return .other
        }
        p += 1
        return .other
    }

    /// `url(` at `p`: the longest of css.l's URI and BAD_URI rules. A string inside, or bytes of its {url}
    /// class (printable ASCII but quotes, parentheses and blanks; bytes from 0xA0; escapes), blanks around.
    private static func uri(_ bytes: [UInt8], _ p: inout Int, _ end: Int) -> Token {
        p += 4
        while p < end && isBlank(bytes[p]) { p += 1 }
        if p < end && (bytes[p] == 0x22 || bytes[p] == 0x27) {
            if string(bytes, &p, end) == .badString { return .badURI }
        } else {
            while p < end {
                let byte = bytes[p]
                if byte == 0x5C, case let length = escapeLength(bytes, p, end), length > 0 {
                    p += length
                } else if byte == 0x21 || (byte >= 0x23 && byte <= 0x26) || (byte >= 0x2A && byte <= 0x7E) || byte >= 0xA0 {
                    p += 1
                } else {
                    break
                }
            }
        }
        while p < end && isBlank(bytes[p]) { p += 1 }
        guard p < end && bytes[p] == 0x29 else { return .badURI }
        p += 1
        return .uri
    }

    /// ASCII `text` at `p`, case-insensitively (css.l is a case-insensitive scanner).
    private static func matches(_ bytes: [UInt8], _ p: Int, _ end: Int, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard p + count <= end else { return false }
        return text.withUTF8Buffer { letters in
            for index in 0..<count {
                let byte = bytes[p + index]
                let lower = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                if lower != letters[index] { return false }
            }
            return true
        }
    }
}
