/// Where and why a text is not JSON: a byte offset and a reason like "expected ',' or ']'".
public struct JSONSyntaxError: Error, Sendable {
    public let offset: Int
    public let reason: String
}

/// The one JSON parser of farm (the rules are in JSONValue.swift): strict RFC 8259 over UTF-8 bytes,
/// with the exact byte offset and what was expected there in its errors, and fast enough for a
/// million-URL list in well under a second and for the spool's records on every claim.
///
/// Stateless: each call parses with a fresh `Parser`; any thread.
public enum JSONParser {
    /// Deeper nesting is refused rather than allowed to exhaust the stack.
    public static let maxDepth = 512

    /// The one JSON value `json` holds (whitespace around it allowed, nothing else).
    public static func parse(_ json: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var parser = Parser(json, spans: false)
        return try parser.parseDocument()
    }

    /// `parse` over any bytes (a file's, a line of a resource table).
    public static func parse(_ json: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        let result = json.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONSyntaxError) in try parse(buffer) }
        } ?? Array(json).withUnsafeBufferPointer { buffer in
            Result { () throws(JSONSyntaxError) in try parse(buffer) }
        }
        return try result.get()
    }

    /// `parse` for a list's JSON: its big array (the document itself, or the `items` of a document
    /// that is an object) is not kept, its elements go to `handle` one by one, so a million URLs never
    /// become a million-node tree; in the document that array is left empty. Strings without an escape
    /// that are printable ASCII stay `span`s of `json`.
    public static func stream(_ json: UnsafeBufferPointer<UInt8>,
                              _ handle: (JSONStreamEvent) -> Void) throws(JSONSyntaxError) -> JSONValue {
        var parser = Parser(json, spans: true)
        return try parser.streamDocument(handle)
    }
}

/// A recursive-descent parser over bytes it never reads past (every access is checked against
/// `bytes.count`: the buffer's subscript is unchecked in release builds). One per document.
private struct Parser {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// Whether plain strings stay spans of `bytes` (see `JSONParser.stream`).
    private let spans: Bool
    private var index = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, spans: Bool) {
        self.bytes = bytes
        self.spans = spans
    }

    /// The document.
    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        skipByteOrderMark()
        let value = try parseValue()
        try expectEnd()
        return value
    }

    /// The document, its big array streamed to `handle` (see `JSONParser.stream`).
    mutating func streamDocument(_ handle: (JSONStreamEvent) -> Void) throws(JSONSyntaxError) -> JSONValue {
        skipByteOrderMark()
        skipWhitespace()
        // The handler is only called during this parse: the optional parameters below just cannot say so.
        let value = try withoutActuallyEscaping(handle) { handle throws(JSONSyntaxError) -> JSONValue in
            switch index < bytes.count ? bytes[index] : 0 {
            case UInt8(ascii: "["):
                handle(.begin(.document))
                return try parseArray { handle(.element($0, end: $1)) }
            case UInt8(ascii: "{"):
                return try parseObject(items: handle)
            default:
                return try parseValue()
            }
        }
        try expectEnd()
        return value
    }

    private mutating func skipByteOrderMark() {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    /// Nothing but whitespace after the value.
    private mutating func expectEnd() throws(JSONSyntaxError) {
        skipWhitespace()
        if index < bytes.count { throw fail("unexpected \(found) after the end of the JSON value") }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of file; expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "\""): return spans ? try parseText() : .string(try parseString())
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected \(found); expected a value")
        }
    }

    /// An array; with `element`, its elements go there (with the offset where each ends) instead of
    /// into the value.
    private mutating func parseArray(element: ((JSONValue, Int) -> Void)? = nil) throws(JSONSyntaxError) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        if closesEmpty(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            let value = try parseValue()
            if let element { element(value, index) } else { elements.append(value) }
        } while try !closes(UInt8(ascii: "]"))
        return .array(elements)
    }

    /// An object; with `items`, the elements of an array member named "items" go there (see `JSONParser.stream`).
    private mutating func parseObject(items: ((JSONStreamEvent) -> Void)? = nil) throws(JSONSyntaxError)
        -> JSONValue {
        try enter()
        var members: [JSONMember] = []
        // Records have about ten members, manifest items two or three: one allocation for most.
        members.reserveCapacity(8)
        if closesEmpty(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of file; expected a string key") }
            guard bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string key in double quotes") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail(index < bytes.count ? "expected ':'" : "unexpected end of file; expected ':'")
            }
            index += 1
            skipWhitespace()
            if let items, key == "items", index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                items(.begin(.items))
                members.append(JSONMember(key, try parseArray { items(.element($0, end: $1)) }))
            } else {
                members.append(JSONMember(key, try parseValue()))
            }
        } while try !closes(UInt8(ascii: "}"))
        return .object(members)
    }

    /// Past the `[` or `{` under `index`, one level deeper.
    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw fail("nested more than \(JSONParser.maxDepth) levels deep") }
        index += 1
    }

    /// Whether the array or object just entered is empty: its `bracket` comes first (and is passed).
    private mutating func closesEmpty(_ bracket: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == bracket else { return false }
        index += 1
        depth -= 1
        return true
    }

    /// After an element or a member: its closing `bracket` (true) or a comma (false), passed.
    @inline(__always)
    private mutating func closes(_ bracket: UInt8) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        switch index < bytes.count ? bytes[index] : 0 {
        case UInt8(ascii: ","):
            index += 1
            return false
        case bracket:
            index += 1
            depth -= 1
            return true
        default:
            let expected = bracket == UInt8(ascii: "]") ? "',' or ']'" : "',' or '}'"
            throw fail(index < bytes.count ? "expected " + expected : "unexpected end of file; expected " + expected)
        }
    }

    /// A string value starting at the opening quote under `index`: a span of the document when it is
    /// printable ASCII with no escape (the common case), else decoded. Leaves `index` after it.
    private mutating func parseText() throws(JSONSyntaxError) -> JSONValue {
        var end = index + 1
        while end + 8 <= bytes.count {
            let word = StringBytes.load(bytes, at: end)
            if StringBytes.hasSpecial(word) || word & StringBytes.topBits != 0 { break }
            end += 8
        }
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                defer { index = end + 1 }
                return .span(index + 1..<end)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            end += 1
        }
        return .string(try parseString())
    }

    /// A string starting at the opening quote under `index`; leaves `index` after the closing quote.
    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let quote = index
        let start = index + 1
        var end = start
        var highBits: UInt8 = 0
        // Fast path: no escapes, the bytes are the string (the common case for URLs), eight at a time
        // up to the first quote, backslash or control character.
        var highWords: UInt64 = 0
        while end + 8 <= bytes.count {
            let word = StringBytes.load(bytes, at: end)
            if StringBytes.hasSpecial(word) { break }
            highWords |= word
            end += 8
        }
        if highWords & StringBytes.topBits != 0 { highBits = 0x80 }
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                return try makeString(UnsafeBufferPointer(rebasing: bytes[start..<end]), ascii: highBits < 0x80,
                                      at: start)
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(quote: quote, from: start, escape: end) }
            if byte < 0x20 { throw controlCharacter(at: end, quote: quote) }
            highBits |= byte
            end += 1
        }
        throw JSONSyntaxError(offset: quote, reason: "unterminated string")
    }

    /// The slow path, once a backslash has been seen at `escape`: decodes into a byte buffer.
    private mutating func parseEscapedString(quote: Int, from start: Int,
                                             escape: Int) throws(JSONSyntaxError) -> String {
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<escape]))
        var position = escape
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                index = position + 1
                return try utf8.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
                    try makeString(buffer, ascii: false, at: start)
                }
            }
            if byte < 0x20 { throw controlCharacter(at: position, quote: quote) }
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                position += 1
                continue
            }
            guard position + 1 < bytes.count else { break }
            let escaped = bytes[position + 1]
            position += 2
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(at: position, escape: position - 2)
                position += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate must be followed by an escaped low one.
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                          bytes[position + 1] == UInt8(ascii: "u") else {
                        throw JSONSyntaxError(offset: position - 6, reason: "invalid \\u escape: a lone surrogate")
                    }
                    let low = try hex4(at: position + 2, escape: position)
                    guard (0xDC00..<0xE000).contains(low) else {
                        throw JSONSyntaxError(offset: position, reason: "invalid \\u escape: a lone surrogate")
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    position += 6
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw JSONSyntaxError(offset: position - 6, reason: "invalid \\u escape: a lone surrogate")
                }
                utf8.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
            default:
                throw JSONSyntaxError(offset: position - 2, reason: "invalid escape sequence in a string")
            }
        }
        throw JSONSyntaxError(offset: quote, reason: "unterminated string")
    }

    private func hex4(at position: Int, escape: Int) throws(JSONSyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw JSONSyntaxError(offset: escape, reason: "invalid \\u escape") }
        var value: UInt32 = 0
        for offset in position..<position + 4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONSyntaxError(offset: escape, reason: "invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private func makeString(_ utf8: UnsafeBufferPointer<UInt8>, ascii: Bool,
                            at start: Int) throws(JSONSyntaxError) -> String {
        // ASCII is valid UTF-8 as it stands; anything else is checked rather than silently repaired.
        if ascii { return String(decoding: utf8, as: UTF8.self) }
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw JSONSyntaxError(offset: start, reason: "invalid UTF-8 in a string")
        }
        return string
    }

    private func controlCharacter(at offset: Int, quote: Int) -> JSONSyntaxError {
        // A raw line break in a string nearly always means its closing quote is missing.
        if bytes[offset] == 0x0A || bytes[offset] == 0x0D {
            return JSONSyntaxError(offset: quote,
                                   reason: "unterminated string: a line break comes before its closing '\"'")
        }
        return JSONSyntaxError(offset: offset, reason: "unescaped control character in a string")
    }

    /// A number, checked against the JSON grammar: an integer in Int's range as its value (no
    /// String made for it), any other as its literal text.
    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONNumber {
        let start = index
        let invalid = JSONSyntaxError(offset: start, reason: "invalid number")
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw invalid }
        // Accumulated negatively: Int.min has no positive counterpart.
        var value = 0, overflow = false
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw invalid }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.subtractingReportingOverflow(Int(bytes[index] - UInt8(ascii: "0")))
                value = next
                overflow = overflow || o1 || o2
                index += 1
            }
        }
        var integer = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw invalid }
            skipDigits()
            integer = false
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw invalid }
            skipDigits()
            integer = false
        }
        // "-0" keeps its text: it is not the canonical form of 0.
        if integer, !overflow, !(negative && value == 0), negative || value != .min {
            return JSONNumber(negative ? value : -value)
        }
        return JSONNumber(text: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        let matches = index + count <= bytes.count
            && (0..<count).allSatisfy { bytes[index + $0] == literal.utf8Start[$0] }
        guard matches else { throw fail("unexpected \(found); expected a value") }
        index += count
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// What is at `index`, for a message: "'x'", "'}'", "byte 0xC3", or "end of file".
    private var found: String {
        guard index < bytes.count else { return "end of file" }
        let byte = bytes[index]
        if byte > 0x20 && byte < 0x7F { return "'" + String(UnicodeScalar(byte)) + "'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    private func fail(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, reason: reason)
    }
}

/// What a streaming parse hands over: a list's big array begins (again, should `items` repeat: the
/// last one counts), or its next element, which ends before offset `end` of the document.
public enum JSONStreamEvent {
    case begin(JSONStreamedArray)
    case element(JSONValue, end: Int)
}

/// Which array is streamed: the document itself, or the `items` member of the document.
public enum JSONStreamedArray: Sendable {
    case document, items
}

/// A 1-based line and column in a text, from a byte offset; columns count characters (Unicode scalars),
/// not bytes, as editors do. Stateless.
public enum TextPosition {
    public static func of(offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        // A byte-order mark is invisible in an editor: it takes no column.
        let hasMark = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        for byte in bytes.prefix(offset).dropFirst(hasMark ? 3 : 0) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                // Continuation bytes (10xxxxxx) belong to the character already counted.
                column += 1
            }
        }
        return (line, column)
    }
}
