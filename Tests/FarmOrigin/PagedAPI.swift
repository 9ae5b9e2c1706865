import FarmJSON

/// Pages of a paged JSON API for `Origin.servePages`, in the shape of a catalogue API (SPEC §7's
/// example): `{"consumables": [item…], "nextPage": N, "metadata": {"title": …, "cover": {"url": …}}}`,
/// the metadata in the first page only. Items are what the test makes them (any JSON values). Stateless.
public enum PagedAPI {
    /// How a page names the next one.
    public enum Next: Sendable {
        /// `"nextPage": 2`: a page number.
        case number
        /// `"nextPage": "2"`: a page number as a string.
        case string
        /// `"nextPage": "<url>?page=2"`: an absolute URL (`url` is the API's, from `Origin.url(for:)`).
        case url(String)
    }

    /// `items` cut into pages of `perPage` (the last may be shorter; at least one page), each naming the next
    /// as `next` says, the last with `"nextPage": null`. The first page carries `metadata` when given.
    public static func pages(_ items: [JSONValue], perPage: Int, next: Next = .number,
                             metadata: JSONValue? = nil) -> [[UInt8]] {
        precondition(perPage > 0, "a page holds at least one item")
        let count = max(1, (items.count + perPage - 1) / perPage)
        return (0..<count).map { index in
            let slice = items[min(items.count, index * perPage)..<min(items.count, (index + 1) * perPage)]
            var page = [JSONMember("consumables", .array(Array(slice)))]
            let number = index + 2
            if index + 1 < count {
                switch next {
                case .number: page.append(JSONMember("nextPage", .number(JSONNumber(number))))
                case .string: page.append(JSONMember("nextPage", .string(String(number))))
                case .url(let url): page.append(JSONMember("nextPage", .string(url + "?page=" + String(number))))
                }
            } else {
                page.append(JSONMember("nextPage", .null))
            }
            if index == 0, let metadata { page.append(JSONMember("metadata", metadata)) }
            return bytes(of: .object(page))
        }
    }

    /// One page as JSON bytes, compact, keys sorted (so a page reads the same every time), with no final
    /// newline.
    public static func bytes(of page: JSONValue) -> [UInt8] {
        Array(JSON.encode(page).dropLast())
    }

    /// An item as the catalogue API writes one: id, title, authors and the URL of its picture.
    public static func item(id: String, url: String, title: String? = nil, authors: [String] = []) -> JSONValue {
        var metadata = [JSONMember("authors", .array(authors.map { .object([JSONMember("name", .string($0))]) })),
                        JSONMember("cover", .object([JSONMember("url", .string(url))]))]
        if let title { metadata.append(JSONMember("title", .string(title))) }
        return .object([JSONMember("id", .string(id)), JSONMember("metadata", .object(metadata))])
    }
}
