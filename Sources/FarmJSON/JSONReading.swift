/// A value that reads itself from a parsed JSON value, by the rules in JSONValue.swift: unknown
/// members are ignored; a required member missing or of the wrong type throws.
public protocol JSONReadable {
    init(json: JSONValue) throws(JSONMismatch)
}

/// Why a JSON value is not what was asked for: `"bytes": a string, not an integer`.
public struct JSONMismatch: Error, Sendable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

/// The codec's entry points for whole documents. Stateless.
public enum JSON {
    /// The record `bytes` hold, or nil when they are not JSON or not such a record.
    public static func decode<Record: JSONReadable>(_ type: Record.Type, from bytes: some Collection<UInt8>)
        -> Record? {
        guard let value = try? JSONParser.parse(bytes) else { return nil }
        return try? Record(json: value)
    }
}

extension JSONValue {
    /// The member `key` of this object, read as `Value`; it must be there.
    @inlinable
    public func decode<Value: JSONReadable>(_ key: String) throws(JSONMismatch) -> Value {
        guard let member = try member(key) else { throw JSONMismatch("no \"\(key)\"") }
        do { return try Value(json: member) } catch { throw JSONMismatch("\"\(key)\": \(error.reason)") }
    }

    /// The member `key` of this object, read as `Value`; nil when it is absent or null.
    @inlinable
    public func decodeIfPresent<Value: JSONReadable>(_ key: String) throws(JSONMismatch) -> Value? {
        guard let member = try member(key), member != .null else { return nil }
        do { return try Value(json: member) } catch { throw JSONMismatch("\"\(key)\": \(error.reason)") }
    }

    /// The member `key` (the last one), nil when absent; throws when this is not an object.
    @usableFromInline
    func member(_ key: String) throws(JSONMismatch) -> JSONValue? {
        guard case .object = self else { throw JSONMismatch("\(kind), not an object") }
        return self[key]
    }
}

/// A string-backed enum reads itself from its raw value; any other string is a mismatch
/// (`"state": unknown Paused`). A type opts in with an empty `JSONReadable` conformance.
extension JSONReadable where Self: RawRepresentable, RawValue == String {
    public init(json: JSONValue) throws(JSONMismatch) {
        let raw = try String(json: json)
        guard let value = Self(rawValue: raw) else { throw JSONMismatch("unknown \(raw)") }
        self = value
    }
}

extension String: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        guard case .string(let value) = json else { throw JSONMismatch("\(json.kind), not a string") }
        self = value
    }
}

/// An integer literal in Int's range: no fraction, no exponent.
extension Int: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        guard case .number(let number) = json, let value = number.int else {
            throw JSONMismatch("\(json.kind), not an integer")
        }
        self = value
    }
}

extension Double: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        guard case .number(let number) = json, let value = number.double else {
            throw JSONMismatch("\(json.kind), not a number")
        }
        self = value
    }
}

extension Bool: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        guard case .bool(let value) = json else { throw JSONMismatch("\(json.kind), not a boolean") }
        self = value
    }
}

extension Array: JSONReadable where Element: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        guard case .array(let elements) = json else { throw JSONMismatch("\(json.kind), not an array") }
        self = []
        reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do { append(try Element(json: element)) } catch { throw JSONMismatch("[\(index)]: \(error.reason)") }
        }
    }
}

extension JSONValue: JSONReadable {
    public init(json: JSONValue) {
        self = json
    }
}
