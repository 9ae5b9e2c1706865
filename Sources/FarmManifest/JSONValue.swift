/// A parsed JSON document, as much of it as the list shapes need: numbers keep their literal text (an
/// `"id": 17` becomes "17", never "17.0") and objects keep their members in order.
///
/// Made by `JSONParser`, read by `ListShape`; internal to FarmManifest. A value type.
enum JSONValue {
    case string(JSONText)
    case number(String)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    /// The value of the member `key` (the last one, should the key repeat, as JavaScript does).
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// What the value is, for messages: "a string", "an array"…
    var kind: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A string value without a String made for it: most strings (URLs) are their own bytes in the
/// document, valid ASCII with no escape, and stay a range of it; the others are decoded.
enum JSONText {
    case span(Range<Int>)
    case decoded(String)
}
