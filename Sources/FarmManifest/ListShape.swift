/// The three shapes a list's JSON may take (SPEC §1), turned into resources; anything else is refused with
/// the index of the first item that does not fit. Stateless; internal to FarmManifest.
///
/// - an array of URL strings;
/// - an object whose `items` is an array of `{"uuid": …, "imageUrlString": …}` (the uuid is the id);
/// - an array of objects with a `url` (an `id`, else a `uuid`, is the id).
enum ListShape {
    private static let expected = "expected an array of URL strings, an array of objects with a \"url\", "
        + "or an object with \"items\""

    static func resources(of document: JSONValue) throws(ShapeError) -> [ManifestResource] {
        switch document {
        case .array(let elements):
            guard let first = elements.first else { return [] }
            if case .string = first { return try urlStrings(elements) }
            if case .object = first { return try urlObjects(elements) }
            throw ShapeError("unknown shape: an array of \(plural(first.kind)) (\(expected))")
        case .object:
            guard let items = document["items"] else {
                throw ShapeError("unknown shape: an object without \"items\" (\(expected))")
            }
            guard case .array(let elements) = items else {
                throw ShapeError("unknown shape: \"items\" is \(items.kind), not an array")
            }
            return try itemObjects(elements)
        default:
            throw ShapeError("unknown shape: \(document.kind) (\(expected))")
        }
    }

    private static func urlStrings(_ elements: [JSONValue]) throws(ShapeError) -> [ManifestResource] {
        var resources: [ManifestResource] = []
        resources.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .string(let url) = element else {
                throw ShapeError("the item at index \(index) is \(element.kind), not a URL string")
            }
            resources.append(ManifestResource(url: url))
        }
        return resources
    }

    private static func urlObjects(_ elements: [JSONValue]) throws(ShapeError) -> [ManifestResource] {
        var resources: [ManifestResource] = []
        resources.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .object = element else {
                throw ShapeError("the item at index \(index) is \(element.kind), not an object with a \"url\"")
            }
            let url = try string(element, "url", index: index)
            var id = try identifier(element, "id", index: index)
            if id == nil { id = try identifier(element, "uuid", index: index) }
            resources.append(ManifestResource(url: url, id: id))
        }
        return resources
    }

    private static func itemObjects(_ elements: [JSONValue]) throws(ShapeError) -> [ManifestResource] {
        var resources: [ManifestResource] = []
        resources.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .object = element else {
                throw ShapeError("the item at index \(index) of \"items\" is \(element.kind), not an object")
            }
            let url = try string(element, "imageUrlString", index: index)
            resources.append(ManifestResource(url: url, id: try identifier(element, "uuid", index: index)))
        }
        return resources
    }

    /// The string member `key` of `object`, which must be there.
    private static func string(_ object: JSONValue, _ key: String, index: Int) throws(ShapeError) -> String {
        guard let value = object[key] else { throw ShapeError("the item at index \(index) has no \"\(key)\"") }
        guard case .string(let text) = value else {
            throw ShapeError("the \"\(key)\" of the item at index \(index) is \(value.kind), not a string")
        }
        return text
    }

    /// An optional id: a string, or a number kept as written; absent or null is no id.
    private static func identifier(_ object: JSONValue, _ key: String, index: Int) throws(ShapeError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case .number(let text)?: return text
        case let value?:
            throw ShapeError("the \"\(key)\" of the item at index \(index) is \(value.kind), not a string")
        }
    }

    private static func plural(_ kind: String) -> String {
        // "a string" → "strings", "an object" → "objects".
        kind == "null" ? "nulls" : String(kind.drop { $0 != " " }.dropFirst()) + "s"
    }
}

/// Why a JSON document is not a list: a reason `Manifest` puts after the file name.
struct ShapeError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
