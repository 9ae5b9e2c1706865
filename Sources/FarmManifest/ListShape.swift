import FarmJSON
import FarmSystem

/// The three shapes a list's JSON may take (SPEC §1), turned into resources as the parser streams the
/// list's array; anything else is refused with the index of the first item that does not fit.
/// Internal to FarmManifest; one per document.
///
/// - an array of URL strings;
/// - an object whose `items` is an array of `{"uuid": …, "imageUrlString": …}` (the uuid is the id);
/// - an array of objects with a `url` (an `id`, else a `uuid`, is the id; `"urls"`, `"sha256"` and `"out"`
///   are its mirrors, checksum and delivered name).
///
/// A misfit is remembered, not thrown at once: the rest of the document is still parsed, so a syntax
/// error anywhere wins over a shape error, as if the whole document had been read first.
struct ListShape {
    private static let expected = "expected an array of URL strings, an array of objects with a \"url\", "
        + "or an object with \"items\""

    private enum Shape {
        case urlStrings, urlObjects, itemObjects
    }

    /// Parsed pages are handed back in steps of this many bytes (see `ManifestText.release`).
    private static let releaseStep = 4 << 20

    private let source: ManifestText
    private var released = 0
    private var resources: ManifestResources
    private var streamed: JSONStreamedArray?
    private var shape: Shape?
    private var misfit: ShapeError?

    /// For the document whose text is `source`.
    init(source: ManifestText) {
        self.source = source
        resources = ManifestResources(source: source)
    }

    /// Takes the next event of the streaming parse.
    mutating func take(_ event: JSONStreamEvent) {
        switch event {
        case .begin(let array):
            resources = ManifestResources(source: source)
            streamed = array
            shape = array == .items ? .itemObjects : nil
            misfit = nil
        case .element(let element, let end):
            if end - released >= Self.releaseStep {
                source.release(released..<end)
                released = end
            }
            guard misfit == nil else { return }
            do { try add(element) } catch { misfit = error }
        }
    }

    /// The shape the document had, once parsed (an empty array counts as one of URL strings).
    var form: ListForm {
        switch shape {
        case .itemObjects?: .items
        case .urlObjects?: .objects
        case .urlStrings?, nil: .urls
        }
    }

    /// The resources, once the parse has ended with `document` (its streamed array left empty).
    func resources(of document: JSONValue) throws(ShapeError) -> ManifestResources {
        switch document {
        case .array:
            if let misfit { throw misfit }
            return resources
        case .object:
            guard let items = document["items"] else {
                throw ShapeError("unknown shape: an object without \"items\" (\(Self.expected))")
            }
            guard case .array = items, streamed == .items else {
                throw ShapeError("unknown shape: \"items\" is \(items.kind), not an array")
            }
            if let misfit { throw misfit }
            return resources
        default:
            throw ShapeError("unknown shape: \(document.kind) (\(Self.expected))")
        }
    }

    private mutating func add(_ element: JSONValue) throws(ShapeError) {
        let index = resources.count
        if shape == nil {
            // The first element of the document's array decides which of the two array shapes it is.
            switch element {
            case .string, .span: shape = .urlStrings
            case .object: shape = .urlObjects
            default: throw ShapeError("unknown shape: an array of \(Self.plural(element.kind)) (\(Self.expected))")
            }
        }
        switch shape! {
        case .urlStrings:
            guard let url = ManifestResources.Text(element) else {
                throw ShapeError("the item at index \(index) is \(element.kind), not a URL string")
            }
            resources.append(url: url, id: nil)
        case .urlObjects:
            guard case .object = element else {
                throw ShapeError("the item at index \(index) is \(element.kind), not an object with a \"url\"")
            }
            // `"urls"`: one resource at several mirrors (SPEC §14), the first its URL; else `"url"`.
            let urls = try strings(element, "urls", index: index)
            let url: ManifestResources.Text
            if let first = urls.first { url = .decoded(first) } else { url = try Self.string(element, "url", index: index) }
            var id = try Self.identifier(element, "id", index: index)
            if id == nil { id = try Self.identifier(element, "uuid", index: index) }
            resources.append(url: url, id: id, sha256: try checksum(element, index: index),
                             mirrors: Array(urls.dropFirst()), out: try out(element, index: index))
        case .itemObjects:
            guard case .object = element else {
                throw ShapeError("the item at index \(index) of \"items\" is \(element.kind), not an object")
            }
            let url = try Self.string(element, "imageUrlString", index: index)
            resources.append(url: url, id: try Self.identifier(element, "uuid", index: index),
                             sha256: try checksum(element, index: index))
        }
    }

    /// The string member `key` of `object`, which must be there.
    private static func string(_ object: JSONValue, _ key: String, index: Int) throws(ShapeError)
        -> ManifestResources.Text {
        guard let value = object[key] else { throw ShapeError("the item at index \(index) has no \"\(key)\"") }
        guard let text = ManifestResources.Text(value) else {
            throw ShapeError("the \"\(key)\" of the item at index \(index) is \(value.kind), not a string")
        }
        return text
    }

    /// The optional array of strings `key` of `object` (absent or null: none); one given holds at least one.
    private func strings(_ object: JSONValue, _ key: String, index: Int) throws(ShapeError) -> [String] {
        switch object[key] {
        case nil, .null?: return []
        case .array(let values)?:
            guard !values.isEmpty else { throw ShapeError("the \"\(key)\" of the item at index \(index) is empty") }
            var strings: [String] = []
            for value in values {
                switch value {
                case .string(let string): strings.append(string)
                case .span(let range):
                    strings.append(String(decoding: UnsafeBufferPointer(rebasing: source.bytes[range]), as: UTF8.self))
                default:
                    throw ShapeError("the \"\(key)\" of the item at index \(index) holds \(value.kind), not a URL string")
                }
            }
            return strings
        case let value?:
            throw ShapeError("the \"\(key)\" of the item at index \(index) is \(value.kind), not an array of URL strings")
        }
    }

    /// An optional id: a string, or a number kept as written; absent or null is no id.
    private static func identifier(_ object: JSONValue, _ key: String, index: Int) throws(ShapeError)
        -> ManifestResources.Text? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let text)?: return .decoded(text)
        case .span(let range)?: return .span(range)
        case .number(let number)?: return .decoded(number.literal)
        case let value?:
            throw ShapeError("the \"\(key)\" of the item at index \(index) is \(value.kind), not a string")
        }
    }

    /// An optional `"sha256"` (SPEC §12): 64 hex digits, either case, kept in lowercase; absent or null is none.
    private func checksum(_ object: JSONValue, index: Int) throws(ShapeError) -> String? {
        let text: String?
        switch object["sha256"] {
        case nil, .null?: return nil
        case .string(let string)?: text = string
        case .span(let range)?: text = String(decoding: UnsafeBufferPointer(rebasing: source.bytes[range]), as: UTF8.self)
        default: text = nil
        }
        guard let digest = text.flatMap(Hex.sha256) else {
            throw ShapeError("the \"sha256\" of the item at index \(index) is not 64 hex digits")
        }
        return digest
    }

    /// An optional `"out"`: the name the resource is delivered under (a text list's `out=`, SPEC §15); absent
    /// or null is none.
    private func out(_ object: JSONValue, index: Int) throws(ShapeError) -> String? {
        switch object["out"] {
        case nil, .null?: return nil
        case .string(let string)? where !string.isEmpty: return string
        case .span(let range)? where !range.isEmpty:
            return String(decoding: UnsafeBufferPointer(rebasing: source.bytes[range]), as: UTF8.self)
        default: throw ShapeError("the \"out\" of the item at index \(index) is not a file name")
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
