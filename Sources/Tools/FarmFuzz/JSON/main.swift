import FarmJSON

/// libFuzzer's entry (`bin/fuzz json`): any bytes to the JSON parser. What parses must write back to text
/// that parses to the same value (objects compared as sets of members: the writer sorts their keys),
/// compact and pretty, and a second write must be the first byte for byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    guard let value = try? JSONParser.parse(bytes) else { return 0 }
    for style in [JSONWriter.Style.compact, .pretty] {
        let written = JSON.encode(value, style)
        guard let again = try? JSONParser.parse(written) else {
            fatalError("written JSON does not parse: \(String(decoding: written, as: UTF8.self))")
        }
        precondition(sorted(again) == sorted(value), "written JSON parses to another value")
        precondition(JSON.encode(again, style) == written, "a second write differs from the first")
    }
    return 0
}

/// `value` with every object's members in the writer's order (by key, stable).
private func sorted(_ value: JSONValue) -> JSONValue {
    switch value {
    case .array(let elements): .array(elements.map(sorted))
    case .object(let members):
        .object(members.enumerated().sorted { a, b in
            let (x, y) = (Array(a.element.key.utf8), Array(b.element.key.utf8))
            return x == y ? a.offset < b.offset : x.lexicographicallyPrecedes(y)
        }.map { JSONMember($0.element.key, sorted($0.element.value)) })
    default: value
    }
}
