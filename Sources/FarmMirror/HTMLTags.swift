/// One tag of an HTML page as GNU wget's tokenizer (html-parse.c, `map_html_tags`) sees it. Only the
/// attributes `LinkExtractor` reads are kept.
struct HTMLTag {
    /// Lowercased.
    var name: String
    var isEnd: Bool
    var attributes: [HTMLAttribute]
    /// For an end tag whose start tag is still open: the bytes between them (how `<style>` reaches the
    /// CSS extractor).
    var contents: Range<Int>?

    /// The first attribute of that (lowercase) name, as wget's `find_attr`.
    func first(_ name: String) -> HTMLAttribute? { attributes.first { $0.name == name } }
}

struct HTMLAttribute {
    /// Lowercased.
    var name: String
    /// Entities decoded; for a quoted value also trimmed, its line breaks removed.
    var value: String
    /// Where the value is in the page, quotes included: links are ordered by it, `style` is read from it.
    var raw: Range<Int>
}

/// wget's tokenizer, rule for rule, because the goal is wget's set of links: tags are found anywhere
/// (inside `<script>` too), `<!-- -->` and `<!...>` declarations are skipped, a tag that does not parse is
/// read again as text from its second byte, a quoted value with a line break that meets `<` or `>` before
/// its closing quote drops the tag, and a page cut off inside a tag ends the scan. Linear: each byte is
/// looked at a bounded number of times (a quoted value at most twice), end tags find their start tag
/// through an index by name, not a walk down the stack, and unterminated comments reuse the last search.
/// One shape stays quadratic, as in wget: many `<!x "` declarations whose quote never closes, each read to
/// the end of the page.
struct HTMLTagScanner {
    let bytes: [UInt8]
    /// Attribute names kept (lowercase).
    let interesting: Set<String>

    private struct OpenTag {
        var name: String
        var contentsStart: Int?
        var serial: Int
    }

    func scan(_ visit: (HTMLTag) -> Void) {
        let end = bytes.count
        var p = 0
        var stack: [OpenTag] = []
        var openByName: [String: [(index: Int, serial: Int)]] = [:]
        var serial = 0
        var lastComment: (from: Int, end: Int?)?

        @inline(__always) func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
        }
        @inline(__always) func isNameChar(_ byte: UInt8) -> Bool {
            byte > 32 && byte < 127 && byte != 0x3D && byte != 0x3C && byte != 0x3E && byte != 0x2F
        }

        scan: while true {
            // look_for_tag
            guard p < end, let open = bytes[p...].firstIndex(of: 0x3C) else { break scan }
            let tagStart = open
            p = open + 1
            guard p < end else { break scan }
            var isEnd = false
            if bytes[p] == 0x21 {
                if p + 3 < end && bytes[p + 1] == 0x2D && bytes[p + 2] == 0x2D {
                    // The last search answers for any later start before its "-->" (or for any later
                    // start at all when it found none): many unterminated comments stay linear.
                    let from = p + 3
                    if let memo = lastComment, from >= memo.from, memo.end.map({ from <= $0 - 3 }) ?? true {
                        if let after = memo.end { p = after }
                    } else {
                        let after = Self.commentEnd(bytes, from: from)
                        lastComment = (from, after)
                        if let after { p = after }
                    }
                } else {
                    p = Self.declarationEnd(bytes, from: p)
                }
                if p == end { break scan }
                continue scan
            } else if bytes[p] == 0x2F {
                isEnd = true
                p += 1
                guard p < end else { break scan }
            }
            let nameStart = p
            while isNameChar(bytes[p]) {
                p += 1
                guard p < end else { break scan }
            }
            if p == nameStart { continue scan }
            let name = Self.lowercased(bytes[nameStart..<p])
            while isSpace(bytes[p]) {
                p += 1
                guard p < end else { break scan }
            }
            var pushedSerial: Int?
            if !isEnd {
                serial += 1
                pushedSerial = serial
                openByName[name, default: []].append((stack.count, serial))
                stack.append(OpenTag(name: name, contentsStart: nil, serial: serial))
            }
            if isEnd && bytes[p] != 0x3E && bytes[p] != 0x3C {
                p = tagStart + 1
                continue scan
            }
            var attributes: [HTMLAttribute] = []
            attributes: while true {
                while isSpace(bytes[p]) {
                    p += 1
                    guard p < end else { break scan }
                }
                if bytes[p] == 0x2F {
                    // <foo a=b /> : a slash closes the tag, or the tag is not one.
                    p += 1
                    guard p < end else { break scan }
                    while isSpace(bytes[p]) {
                        p += 1
                        guard p < end else { break scan }
                    }
                    if bytes[p] != 0x3C && bytes[p] != 0x3E {
                        p = tagStart + 1
                        continue scan
                    }
                }
                if bytes[p] == 0x3C || bytes[p] == 0x3E { break attributes }
                let attributeStart = p
                while isNameChar(bytes[p]) {
                    p += 1
                    guard p < end else { break scan }
                }
                let attributeEnd = p
                if attributeStart == attributeEnd {
                    p = tagStart + 1
                    continue scan
                }
                while isSpace(bytes[p]) {
                    p += 1
                    guard p < end else { break scan }
                }
                let valueStart: Int, valueEnd: Int, raw: Range<Int>
                var decode = true, trim = false
                if isNameChar(bytes[p]) || bytes[p] == 0x2F || bytes[p] == 0x3C || bytes[p] == 0x3E {
                    // <ul compact>: the value is the name, lowercased, as wget makes it.
                    valueStart = attributeStart
                    valueEnd = attributeEnd
                    raw = attributeStart..<attributeEnd
                    decode = false
                } else if bytes[p] == 0x3D {
                    p += 1
                    guard p < end else { break scan }
                    while isSpace(bytes[p]) {
                        p += 1
                        guard p < end else { break scan }
                    }
                    if bytes[p] == 0x22 || bytes[p] == 0x27 {
                        let quote = bytes[p]
                        let rawStart = p
                        p += 1
                        guard p < end else { break scan }
                        let begin = p
                        var newlineSeen = false
                        while bytes[p] != quote {
                            if !newlineSeen && bytes[p] == 0x0A {
                                // Probably a forgotten quote: read again, ending at `<` or `>` (dropping the tag).
                                p = begin
                                newlineSeen = true
                                continue
                            } else if newlineSeen && (bytes[p] == 0x3C || bytes[p] == 0x3E) {
                                break
                            }
                            p += 1
                            guard p < end else { break scan }
                        }
                        valueStart = begin
                        valueEnd = p
                        guard bytes[p] == quote else { continue scan }
                        p += 1
                        guard p < end else { break scan }
                        raw = rawStart..<p
                        trim = true
                    } else {
                        let begin = p
                        while !isSpace(bytes[p]) && bytes[p] != 0x3C && bytes[p] != 0x3E {
                            p += 1
                            guard p < end else { break scan }
                        }
                        if p == begin {
                            p = tagStart + 1
                            continue scan
                        }
                        valueStart = begin
                        valueEnd = p
                        raw = begin..<p
                    }
                } else {
                    p = tagStart + 1
                    continue scan
                }
                let attributeName = Self.lowercased(bytes[attributeStart..<attributeEnd])
                guard interesting.contains(attributeName) else { continue attributes }
                let value = decode
                    ? Self.decoded(bytes[valueStart..<valueEnd], trim: trim)
                    : Self.lowercased(bytes[valueStart..<valueEnd])
                attributes.append(HTMLAttribute(name: attributeName, value: value, raw: raw))
            }
            if let pushedSerial, stack.last?.serial == pushedSerial {
                stack[stack.count - 1].contentsStart = p + 1
            }
            var contents: Range<Int>?
            if isEnd, let found = Self.latestOpen(name, in: stack, index: &openByName) {
                if let start = stack[found].contentsStart, start <= tagStart { contents = start..<tagStart }
                stack.removeSubrange(found...)
            }
            visit(HTMLTag(name: name, isEnd: isEnd, attributes: attributes, contents: contents))
            if bytes[p] != 0x3C {
                p += 1
                guard p < end else { break scan }
            }
        }
    }

    /// The stack index of the most recent open tag named `name`; entries of tags popped since are dropped
    /// on the way (each at most once).
    private static func latestOpen(_ name: String, in stack: [OpenTag],
                                   index: inout [String: [(index: Int, serial: Int)]]) -> Int? {
        guard var entries = index[name] else { return nil }
        defer { index[name] = entries.isEmpty ? nil : entries }
        while let last = entries.last {
            if last.index < stack.count && stack[last.index].serial == last.serial { return last.index }
            entries.removeLast()
        }
        return nil
    }

    /// After the first "-->" at or past `start`, or nil.
    static func commentEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 2 < bytes.count {
            if bytes[index + 2] == 0x3E && bytes[index + 1] == 0x2D && bytes[index] == 0x2D { return index + 3 }
            index += 1
        }
        return nil
    }

    /// wget's `advance_declaration`: past an SGML declaration such as `<!DOCTYPE html>` (with its quoted
    /// strings and `-- --` comments), or `start + 1` when it is not one. `start` is at the "!".
    static func declarationEnd(_ bytes: [UInt8], from start: Int) -> Int {
        enum State { case bang, normal, declarationName, dash1, dash2, comment, dash3, dash4, quote1, inQuote, quote2 }
        let end = bytes.count
        var p = start
        var ch = bytes[p]
        p += 1
        var state = State.bang
        var quote: UInt8 = 0
        func isNameChar(_ byte: UInt8) -> Bool {
            byte > 32 && byte < 127 && byte != 0x3D && byte != 0x3C && byte != 0x3E && byte != 0x2F
        }
        while true {
            if p == end { return start + 1 }
            switch state {
            case .bang:
                guard ch == 0x21 else { return start + 1 }
                ch = bytes[p]; p += 1
                state = .normal
            case .normal:
                switch ch {
                case 0x2D: state = .dash1
                case 0x20, 0x09, 0x0D, 0x0A: ch = bytes[p]; p += 1
                case 0x3C, 0x3E: return p
                case 0x22, 0x27: state = .quote1
                default:
                    guard isNameChar(ch) else { return start + 1 }
                    state = .declarationName
                }
            case .declarationName:
                if ch == 0x2D {
                    state = .dash1
                } else if isNameChar(ch) {
                    ch = bytes[p]; p += 1
                } else {
                    state = .normal
                }
            case .quote1:
                quote = ch
                ch = bytes[p]; p += 1
                state = .inQuote
            case .inQuote:
                if ch == quote { state = .quote2 } else { ch = bytes[p]; p += 1 }
            case .quote2:
                ch = bytes[p]; p += 1
                state = .normal
            case .dash1:
                ch = bytes[p]; p += 1
                state = .dash2
            case .dash2:
                guard ch == 0x2D else { return start + 1 }
                ch = bytes[p]; p += 1
                state = .comment
            case .comment:
                if ch == 0x2D { state = .dash3 } else { ch = bytes[p]; p += 1 }
            case .dash3:
                ch = bytes[p]; p += 1
                state = .dash4
            case .dash4:
                if ch == 0x2D {
                    ch = bytes[p]; p += 1
                    state = .normal
                } else {
                    state = .comment
                }
            }
        }
    }

    static func lowercased(_ slice: ArraySlice<UInt8>) -> String {
        String(decoding: slice.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// wget's `convert_and_copy` with AP_DECODE_ENTITIES (and AP_TRIM_BLANKS for quoted values): blanks at
    /// both ends dropped and CR/LF inside removed, then `&lt; &gt; &amp; &apos; &quot;` and numeric entities
    /// of ASCII (1-127) decoded; every other "&" kept as written.
    static func decoded(_ slice: ArraySlice<UInt8>, trim: Bool) -> String {
        var from = slice.startIndex, end = slice.endIndex
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        if trim {
            while from < end && isSpace(slice[from]) { from += 1 }
            while end > from && isSpace(slice[end - 1]) { end -= 1 }
        }
        var output: [UInt8] = []
        output.reserveCapacity(end - from)
        while from < end {
            let byte = slice[from]
            if byte == 0x26, let (value, next) = entity(slice, at: from, end: end) {
                output.append(value)
                from = next
            } else if trim && (byte == 0x0A || byte == 0x0D) {
                from += 1
            } else {
                output.append(byte)
                from += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// wget's `decode_entity`: the entity at `at` (an "&") and the index after it (and after its ";").
    static func entity(_ bytes: ArraySlice<UInt8>, at: Int, end: Int) -> (UInt8, Int)? {
        var p = at + 1
        guard p < end else { return nil }
        func isAlnum(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
        }
        func skipSemicolon(_ index: Int) -> Int { index < end && bytes[index] == 0x3B ? index + 1 : index }
        // The name must end the text or be followed by a non-alphanumeric: "&ltfoo" is not "<foo".
        func named(_ name: String, _ value: UInt8) -> (UInt8, Int)? {
            let letters = Array(name.utf8)
            guard p + letters.count <= end, bytes[p..<(p + letters.count)].elementsEqual(letters),
                  p + letters.count == end || !isAlnum(bytes[p + letters.count]) else { return nil }
            return (value, skipSemicolon(p + letters.count))
        }
        let first = bytes[p]
        p += 1
        switch first {
        case 0x23: // "#"
            var value = 0, digits = 0
            if p < end && bytes[p] == 0x78 { // "x", lowercase only, as wget
                p += 1
                while value < 256 && p < end && WebURL.isHex(bytes[p]) {
                    value = value << 4 + Int(WebURL.hexValue(bytes[p])); p += 1; digits += 1
                }
            } else {
                while value < 256 && p < end && bytes[p] >= 0x30 && bytes[p] <= 0x39 {
                    value = value * 10 + Int(bytes[p] - 0x30); p += 1; digits += 1
                }
            }
            guard digits > 0, value > 0, value < 128 else { return nil }
            return (UInt8(value), skipSemicolon(p))
        case 0x67: return named("t", 0x3E)   // &gt
        case 0x6C: return named("t", 0x3C)   // &lt
        case 0x61: return named("mp", 0x26) ?? named("pos", 0x27)  // &amp &apos
        case 0x71: return named("uot", 0x22) // &quot
        default: return nil
        }
    }
}
