// FarmJSON: the one JSON codec of farm
// ====================================
//
// Every JSON farm reads or writes goes through this module: the spool's records (job files and the
// resource tables, sidecars and outcome records, list records, control/desired.json), the status
// (status/summary.json, `farm status --json`, `farm ps --json`, what `farm serve` answers and streams),
// users' manifests (FarmManifest) and the tools that read farm's output. It is written here rather
// than taken from Foundation because Foundation's JSONEncoder and JSONDecoder cost a quarter of a
// worker's CPU per job, and because a manifest's errors must say exactly where they are.
//
// Reading (`JSONParser`): strict RFC 8259 over UTF-8 bytes.
// - One value, whitespace around it, nothing else; a leading UTF-8 byte-order mark is skipped.
// - Strings must be valid UTF-8 with no raw control character; every escape is decoded, and a
//   surrogate escape must be half of a pair.
// - A syntax error carries its byte offset and what was expected there (`TextPosition` turns the
//   offset into a line and a column); nesting deeper than `JSONParser.maxDepth` is an error, never a
//   stack overflow.
// - Duplicate keys: the last one wins, as in JavaScript's JSON.parse. Objects keep every member in
//   order and lookups search from the end.
// - Numbers are kept as written (an id `17` stays "17", never "17.0": see `JSONNumber`). Read as an
//   Int, a number must be an integer literal in Int's range (no fraction, no exponent); read as a
//   Double, any number.
// - Records (`JSONReadable`): unknown members are ignored, so a record from a newer farm (a sidecar
//   with an extra field) still reads; a required member that is missing or of the wrong type makes
//   the record unreadable; an optional member may be absent or null.
//
// Writing (`JSONWriter`):
// - keys in sorted order of their UTF-8 bytes: records write theirs in that order (checked in debug
//   builds), `JSONValue` objects are sorted as they are written;
// - slashes are not escaped; `"` and `\` are, and control characters as \b \t \n \f \r or \u00xx
//   (lowercase hex); everything else, DEL and non-ASCII included, is written as is;
// - integers in decimal; doubles in Swift's shortest form without a trailing ".0" (10, 0.3, 1e+16);
//   a NaN or an infinity as null;
// - compact (one line) or pretty (two-space indents, `"key" : value`): byte for byte what Foundation's
//   JSONEncoder writes with .sortedKeys and .withoutEscapingSlashes, so farms built before and after
//   this module read each other's spools and show the same output;
// - a document ends with a newline;
// - a record decides whether a missing optional is left out (the spool's records: smaller files) or
//   written as null (the status documents: SPEC §4 shows every key).

/// A parsed JSON value. Objects keep their members in the order of the text, duplicates included
/// (the last one counts, see `subscript`); numbers are kept as written.
///
/// A value type, made by `JSONParser`, read through `JSONReadable` records or directly; any thread.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    /// A string left in the parsed text: bytes `range` of it, printable ASCII without an escape. Only
    /// `JSONParser.stream` makes these (for a manifest's big lists, where a million URLs must not
    /// become a million Strings); every other parse decodes strings into `string`.
    case span(Range<Int>)
    case array([JSONValue])
    case object([JSONMember])

    /// The value of the member `key` of an object (its last one, should the key repeat); nil when
    /// there is none or this is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        // Lengths first: records look up each of their keys among ten or so.
        let count = key.utf8.count
        for member in members.reversed() where member.key.utf8.count == count && member.key == key {
            return member.value
        }
        return nil
    }

    /// What the value is, for messages: "a string", "an array"…
    public var kind: String {
        switch self {
        case .string, .span: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON number as written: an integer in Int's range is kept as its value (the spool's records
/// hold mostly such numbers, and no String is made for them), any other number as its literal text
/// ("-0", "0.5", "1e+16", "9223372036854775808"). A value type.
public struct JSONNumber: Equatable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The value, or the text when the value is not an Int.
    private enum Storage: Equatable, Sendable {
        case integer(Int)
        case text(String)
    }

    private let storage: Storage

    public init(_ value: Int) {
        storage = .integer(value)
    }

    /// The number a parser read as `text`, which must be valid JSON and not a canonical Int.
    init(text: String) {
        storage = .text(text)
    }

    /// The number `literal` is, which must be a valid JSON number ("17", "-0.5", "1E+3").
    public init(stringLiteral literal: String) {
        guard case .number(let number)? = try? JSONParser.parse(literal.utf8) else {
            preconditionFailure("not a JSON number: \(literal)")
        }
        self = number
    }

    /// The literal text, as valid JSON: "17", "-0.5", "1E+3".
    public var literal: String {
        switch storage {
        case .integer(let value): String(value)
        case .text(let text): text
        }
    }

    public var description: String { literal }

    /// The number as an Int: an integer literal in Int's range ("-0" is 0); nil for a fraction, an
    /// exponent or an integer out of range.
    public var int: Int? {
        switch storage {
        case .integer(let value): value
        case .text(let text): Int(text)
        }
    }

    /// The number as the nearest Double.
    public var double: Double? {
        switch storage {
        case .integer(let value): Double(value)
        case .text(let text): Double(text)
        }
    }
}

/// One member of a JSON object: a key and its value.
public struct JSONMember: Equatable, Sendable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
