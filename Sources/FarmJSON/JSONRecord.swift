/// A record whose members are its stored properties: Swift's `Codable` synthesis lists them, and this
/// module reads and writes them by the rules in JSONValue.swift (keys sorted, unknown members
/// ignored, a required member missing or of the wrong type an error). The hand-written
/// `JSONWritable`/`JSONReadable` conformances stay for the records a benchmark shows are hot (job
/// files, sidecars) and for those that read differently from what they hold.
public protocol JSONRecord: Codable, JSONWritable, JSONReadable {
    /// Whether a nil optional is written as null (the status documents: SPEC §4 shows every key) or
    /// left out (the spool's records: smaller files).
    static var writesNulls: Bool { get }
}

extension JSONRecord {
    public static var writesNulls: Bool { false }

    public func write(to json: inout JSONWriter) {
        JSONValueEncoder.value(of: self).write(to: &json)
    }

    public init(json: JSONValue) throws(JSONMismatch) {
        do { try self.init(from: JSONValueDecoder(json, path: [])) } catch let error as JSONMismatch {
            throw error
        } catch {
            throw JSONMismatch(JSONValueDecoder.reason(error))
        }
    }
}

extension JSONNumber {
    /// `value` in Swift's shortest form that reads back as the same Double, without a trailing ".0";
    /// nil for a NaN or an infinity (written as null).
    init?(double value: Double) {
        guard value.isFinite else { return nil }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        if let integer = Int(text) { self.init(integer) } else { self.init(text: text) }
    }
}

// MARK: Encoding

/// Turns an `Encodable` value into a `JSONValue` tree (which `JSONWriter` writes with sorted keys).
/// Used only through `JSONRecord`: one per value written, on the caller's thread.
struct JSONValueEncoder: Encoder {
    /// Where the container this encoder hands out puts the value.
    final class Slot {
        var value: JSONValue = .null
        var members: [JSONMember]?
        var elements: [JSONValue]?

        var result: JSONValue {
            if let members { return .object(members) }
            if let elements { return .array(elements) }
            return value
        }
    }

    let slot = Slot()
    let writesNulls: Bool
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The JSON of `value`; null optionals written as its type says when it is a `JSONRecord`.
    static func value<Value: Encodable>(of value: Value, writesNulls inherited: Bool = false) -> JSONValue {
        switch value {
        case let string as String: return .string(string)
        case let bool as Bool: return .bool(bool)
        case let int as Int: return .number(JSONNumber(int))
        case let double as Double: return JSONNumber(double: double).map(JSONValue.number) ?? .null
        default: break
        }
        let encoder = JSONValueEncoder(writesNulls: (Value.self as? any JSONRecord.Type)?.writesNulls ?? inherited)
        // Encoding into a tree cannot fail: nothing here throws, and farm's records throw nothing either.
        try? value.encode(to: encoder)
        return encoder.slot.result
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if slot.members == nil { slot.members = [] }
        return KeyedEncodingContainer(Keyed(slot: slot, writesNulls: writesNulls))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if slot.elements == nil { slot.elements = [] }
        return Unkeyed(slot: slot, writesNulls: writesNulls)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(slot: slot, writesNulls: writesNulls) }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let slot: Slot
        let writesNulls: Bool
        var codingPath: [any CodingKey] { [] }

        func add(_ key: Key, _ value: JSONValue) { slot.members?.append(JSONMember(key.stringValue, value)) }

        mutating func encodeNil(forKey key: Key) { add(key, .null) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {
            add(key, JSONValueEncoder.value(of: value, writesNulls: writesNulls))
        }

        // The optionals farm's records hold: nil is null or nothing, as the record's type says.
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) { optional(value, key) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) { optional(value, key) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) { optional(value, key) }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) { optional(value, key) }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) { optional(value, key) }

        private mutating func optional<T: Encodable>(_ value: T?, _ key: Key) {
            if let value { encode(value, forKey: key) } else if writesNulls { encodeNil(forKey: key) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("JSONRecord: nested containers are not supported")
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            preconditionFailure("JSONRecord: nested containers are not supported")
        }

        mutating func superEncoder() -> any Encoder { preconditionFailure("JSONRecord: no super encoder") }
        mutating func superEncoder(forKey key: Key) -> any Encoder { preconditionFailure("JSONRecord: no super encoder") }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let slot: Slot
        let writesNulls: Bool
        var codingPath: [any CodingKey] { [] }
        var count: Int { slot.elements?.count ?? 0 }

        mutating func encodeNil() { slot.elements?.append(.null) }

        mutating func encode<T: Encodable>(_ value: T) {
            slot.elements?.append(JSONValueEncoder.value(of: value, writesNulls: writesNulls))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("JSONRecord: nested containers are not supported")
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            preconditionFailure("JSONRecord: nested containers are not supported")
        }

        mutating func superEncoder() -> any Encoder { preconditionFailure("JSONRecord: no super encoder") }
    }

    struct Single: SingleValueEncodingContainer {
        let slot: Slot
        let writesNulls: Bool
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() { slot.value = .null }

        mutating func encode<T: Encodable>(_ value: T) {
            slot.value = JSONValueEncoder.value(of: value, writesNulls: writesNulls)
        }
    }
}

// MARK: Decoding

/// Reads a `Decodable` value from a `JSONValue` by the rules in JSONValue.swift; scalars are read by
/// their `JSONReadable` conformances, so a record's members read exactly as hand-written ones do.
/// Used only through `JSONRecord`: one per value read, on the caller's thread.
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    /// The keys from the top, for messages.
    let path: [String]

    init(_ value: JSONValue, path: [String]) {
        self.value = value
        self.path = path
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `member` read as `T`: by its `JSONReadable` conformance when it has one, else by `Decodable`.
    static func read<T: Decodable>(_ type: T.Type, from member: JSONValue, path: [String]) throws -> T {
        if let readable = T.self as? any JSONReadable.Type {
            do { return try readable.init(json: member) as! T } catch {
                throw JSONMismatch(Self.place(path) + error.reason)
            }
        }
        return try T(from: JSONValueDecoder(member, path: path))
    }

    /// `"a"."b": ` for a path, nothing at the top.
    static func place(_ path: [String]) -> String {
        path.isEmpty ? "" : path.map { "\"\($0)\"" }.joined(separator: ".") + ": "
    }

    /// A sentence for what Swift's decoding machinery threw (a mismatch of this module reads as it is).
    static func reason(_ error: any Error) -> String {
        if let mismatch = error as? JSONMismatch { return mismatch.reason }
        return "\(error)"
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object = value else { throw JSONMismatch(Self.place(path) + "\(value.kind), not an object") }
        return KeyedDecodingContainer(Keyed(value: value, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw JSONMismatch(Self.place(path) + "\(value.kind), not an array")
        }
        return Unkeyed(elements: elements, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(value: value, path: path) }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let value: JSONValue
        let path: [String]
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] {
            guard case .object(let members) = value else { return [] }
            return members.compactMap { Key(stringValue: $0.key) }
        }

        func contains(_ key: Key) -> Bool { value[key.stringValue] != nil }

        func decodeNil(forKey key: Key) -> Bool { value[key.stringValue] ?? .null == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let member = value[key.stringValue] else {
                throw JSONMismatch(JSONValueDecoder.place(path) + "no \"\(key.stringValue)\"")
            }
            return try JSONValueDecoder.read(type, from: member, path: path + [key.stringValue])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey> {
            try JSONValueDecoder(value[key.stringValue] ?? .null, path: path + [key.stringValue]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try JSONValueDecoder(value[key.stringValue] ?? .null, path: path + [key.stringValue]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { JSONValueDecoder(value, path: path) }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            JSONValueDecoder(value[key.stringValue] ?? .null, path: path + [key.stringValue])
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let path: [String]
        var codingPath: [any CodingKey] { [] }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }
        private(set) var currentIndex = 0

        init(elements: [JSONValue], path: [String]) {
            self.elements = elements
            self.path = path
        }

        mutating func decodeNil() -> Bool {
            guard !isAtEnd, elements[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard !isAtEnd else { throw JSONMismatch(JSONValueDecoder.place(path) + "too few elements") }
            defer { currentIndex += 1 }
            return try JSONValueDecoder.read(type, from: elements[currentIndex], path: path + ["[\(currentIndex)]"])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

        mutating func superDecoder() throws -> any Decoder { try next() }

        /// A decoder for the next element.
        private mutating func next() throws -> JSONValueDecoder {
            guard !isAtEnd else { throw JSONMismatch(JSONValueDecoder.place(path) + "too few elements") }
            defer { currentIndex += 1 }
            return JSONValueDecoder(elements[currentIndex], path: path + ["[\(currentIndex)]"])
        }
    }

    struct Single: SingleValueDecodingContainer {
        let value: JSONValue
        let path: [String]
        var codingPath: [any CodingKey] { [] }

        func decodeNil() -> Bool { value == .null }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONValueDecoder.read(type, from: value, path: path)
        }
    }
}
