import Foundation

/// Pages of a paged JSON API for `Origin.servePages`, in the shape of a catalogue API (SPEC §7's
/// example): `{"consumables": [item…], "nextPage": N, "metadata": {"title": …, "cover": {"url": …}}}`,
/// the metadata in the first page only. Items are what the test makes them (any JSON objects). Stateless.
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
    public static func pages(_ items: [[String: Any]], perPage: Int, next: Next = .number,
                             metadata: [String: Any]? = nil) -> [[UInt8]] {
        precondition(perPage > 0, "a page holds at least one item")
        let count = max(1, (items.count + perPage - 1) / perPage)
        return (0..<count).map { index in
            let slice = items[min(items.count, index * perPage)..<min(items.count, (index + 1) * perPage)]
            var page: [String: Any] = ["consumables": Array(slice)]
            let number = index + 2
            if index + 1 < count {
                switch next {
                case .number: page["nextPage"] = number
                case .string: page["nextPage"] = String(number)
                case .url(let url): page["nextPage"] = url + "?page=" + String(number)
                }
            } else {
                page["nextPage"] = NSNull()
            }
            if index == 0, let metadata { page["metadata"] = metadata }
            return bytes(of: page)
        }
    }

    /// One page as JSON bytes (keys sorted, so a page reads the same every time).
    public static func bytes(of object: [String: Any]) -> [UInt8] {
        // Only what the tests build goes in: objects, arrays, strings, numbers and NSNull always serialize.
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return [UInt8](data)
    }

    /// An item as the catalogue API writes one: id, title, authors and the URL of its picture.
    public static func item(id: String, url: String, title: String? = nil, authors: [String] = []) -> [String: Any] {
        var metadata: [String: Any] = ["cover": ["url": url], "authors": authors.map { ["name": $0] }]
        if let title { metadata["title"] = title }
        return ["id": id, "metadata": metadata]
    }
}
