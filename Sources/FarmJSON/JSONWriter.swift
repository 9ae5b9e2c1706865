/// A value that writes itself as JSON: a record writes an object with its keys in sorted order.
public protocol JSONWritable {
    func write(to json: inout JSONWriter)
}

/// The one JSON writer of farm (the rules are in JSONValue.swift): values are appended as they come,
/// straight into bytes, with no tree in between, so `farm add` can write a million job files.
///
/// A record writes `beginObject()`, then `member(key, value)` for each key in sorted order (the
/// writer checks the order in debug builds), then `endObject()`. A value type; one per document.
public struct JSONWriter {
    /// Compact (one line, no spaces) or pretty (as JSONEncoder's .prettyPrinted).
    public enum Style: Sendable {
        case compact, pretty
    }

    private var bytes: [UInt8] = []
    private let pretty: Bool
    /// How many objects and arrays are open.
    private var depth = 0
    /// Nothing written yet in the innermost open object or array.
    private var empty = true
    /// A key was just written: its value comes next, with no separator.
    private var afterKey = false
#if DEBUG
    /// The last key written in each open object, to check the order.
    private var lastKeys: [[UInt8]?] = []
#endif

    public init(_ style: Style = .compact, capacity: Int = 256) {
        pretty = style == .pretty
        bytes.reserveCapacity(capacity)
    }

    /// The document, with its final newline; nothing is written after.
    public mutating func finish() -> [UInt8] {
        assert(depth == 0, "JSONWriter: an object or array is still open")
        bytes.append(0x0A)
        return bytes
    }

    // MARK: Objects and arrays

    public mutating func beginObject() {
        open(UInt8(ascii: "{"))
#if DEBUG
        lastKeys.append(nil)
#endif
    }

    public mutating func endObject() {
        close(UInt8(ascii: "}"))
#if DEBUG
        lastKeys.removeLast()
#endif
    }

    public mutating func beginArray() {
        open(UInt8(ascii: "["))
    }

    public mutating func endArray() {
        close(UInt8(ascii: "]"))
    }

    /// The next key of the open object; keys come in sorted order and need no escape (a record's).
    public mutating func key(_ key: StaticString) {
        key.withUTF8Buffer { appendKey($0, escaped: false) }
    }

    /// The next key of the open object, escaped as a string is; keys come in sorted order.
    public mutating func key(_ key: String) {
        var key = key
        key.withUTF8 { appendKey($0, escaped: true) }
    }

    /// `key` and its value.
    @inlinable
    public mutating func member<Value: JSONWritable>(_ key: StaticString, _ value: Value) {
        self.key(key)
        value.write(to: &self)
    }

    // MARK: Scalars

    public mutating func null() {
        separate()
        bytes.append(contentsOf: Self.nullBytes)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
    }

    public mutating func int(_ value: Int) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude  // Int.min has no positive Int
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    /// Swift's shortest form that reads back as the same Double, without a trailing ".0".
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return null() }
        separate()
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    public mutating func string(_ value: String) {
        separate()
        var value = value
        value.withUTF8 { appendString($0) }
    }

    /// A parsed number, as it was written.
    public mutating func number(_ number: JSONNumber) {
        separate()
        bytes.append(contentsOf: number.literal.utf8)
    }

    // MARK: Private

    private static let nullBytes = Array("null".utf8), trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let u00 = Array("u00".utf8), hex = Array("0123456789abcdef".utf8)

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        depth += 1
        empty = true
    }

    private mutating func close(_ bracket: UInt8) {
        assert(depth > 0 && !afterKey, "JSONWriter: nothing to close here")
        depth -= 1
        if pretty {
            // JSONEncoder's empty collection is a blank line: "[\n\n]".
            if empty { bytes.append(0x0A) }
            newline()
        }
        bytes.append(bracket)
        empty = false
    }

    /// What comes before a value: nothing after a key, else a comma after a sibling and, when
    /// pretty, a new line.
    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard depth > 0 else { return }
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        if pretty { newline() }
    }

    private mutating func newline() {
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    private mutating func appendKey(_ key: UnsafeBufferPointer<UInt8>, escaped: Bool) {
        assert(depth > 0 && !afterKey, "JSONWriter: a key outside an object")
#if DEBUG
        assert(lastKeys[lastKeys.count - 1].map { !key.lexicographicallyPrecedes($0) } ?? true,
               "JSONWriter: key \(String(decoding: key, as: UTF8.self)) out of order")
        lastKeys[lastKeys.count - 1] = Array(key)
#endif
        separate()
        if escaped {
            appendString(key)
        } else {
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: key)
            bytes.append(UInt8(ascii: "\""))
        }
        if pretty { bytes.append(UInt8(ascii: " ")) }
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    /// `utf8` quoted, with the escapes of the rules: `\"`, `\\`, the five short control escapes,
    /// `\u00xx` for the other controls; everything else as is. Runs without an escape (nearly every
    /// URL and path) are found eight bytes at a time and copied whole.
    private mutating func appendString(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var run = 0  // start of the bytes not yet copied
        var index = 0
        while index < utf8.count {
            while index + 8 <= utf8.count, !StringBytes.hasSpecial(StringBytes.load(utf8, at: index)) { index += 8 }
            guard index < utf8.count else { break }
            let byte = utf8[index]
            index += 1
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index - 1]))
            run = index
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case 0x22, 0x5C: bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default:
                bytes.append(contentsOf: Self.u00)
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0xF)])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSON {
    /// `value` as a document: compact (one line) or pretty, with its final newline.
    @inlinable
    public static func encode(_ value: some JSONWritable, _ style: JSONWriter.Style = .compact,
                              capacity: Int = 256) -> [UInt8] {
        var writer = JSONWriter(style, capacity: capacity)
        value.write(to: &writer)
        return writer.finish()
    }
}

extension String: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.string(self) }
}

extension Int: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.int(self) }
}

extension Int32: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.int(Int(self)) }
}

extension Bool: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.bool(self) }
}

extension Double: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) { json.double(self) }
}

/// nil is written as null; a record that leaves a missing value out does not write its key.
extension Optional: JSONWritable where Wrapped: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) {
        if let value = self { value.write(to: &json) } else { json.null() }
    }
}

extension Array: JSONWritable where Element: JSONWritable {
    @inlinable public func write(to json: inout JSONWriter) {
        json.beginArray()
        for element in self { element.write(to: &json) }
        json.endArray()
    }
}

/// Objects with their members sorted by key's bytes (stable, so duplicates keep their order). Keys are
/// told apart by their bytes, not as Strings compare: two spellings of "é" are one String, and a sort that
/// took them for equal while ordering them by bytes would not be a consistent order.
extension JSONValue: JSONWritable {
    public func write(to json: inout JSONWriter) {
        switch self {
        case .null: json.null()
        case .span: preconditionFailure("JSONWriter: a span has no text without the document it was parsed from")
        case .bool(let value): json.bool(value)
        case .number(let number): json.number(number)
        case .string(let value): json.string(value)
        case .array(let elements): elements.write(to: &json)
        case .object(let members):
            json.beginObject()
            let sorted = members.enumerated().sorted { a, b in
                a.element.key.utf8.lexicographicallyPrecedes(b.element.key.utf8)
                    || (a.element.key.utf8.elementsEqual(b.element.key.utf8) && a.offset < b.offset)
            }
            for (_, member) in sorted {
                json.key(member.key)
                member.value.write(to: &json)
            }
            json.endObject()
        }
    }
}
