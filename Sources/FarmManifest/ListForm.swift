import FarmJSON

/// Which of the three shapes of SPEC §1 a list's JSON had: recorded with the list, so that `farm export`
/// gives the list back in the shape it came in.
public enum ListForm: String, Sendable, CaseIterable {
    /// `["https://…/a.jpg", …]`
    case urls
    /// `{"items": [{"uuid": …, "imageUrlString": …}]}`
    case items
    /// `[{"id": …, "url": …}]`
    case objects

    /// A list of `resources` (URL, id and checksum, in order) written in this shape: what `ListShape` reads
    /// back as the same resources. An array of URL strings has no ids or checksums to keep.
    public func document(_ resources: some Sequence<(url: String, id: String, sha256: String?)>) -> JSONValue {
        document(mirrored: resources.lazy.map { (url: $0.url, id: $0.id, sha256: $0.sha256, mirrors: [], out: nil) })
    }

    /// As `document`, with each resource's mirrors (SPEC §14) and delivered name (SPEC §15), which only the
    /// objects shape can hold: an object with mirrors has `"urls"` (its URL first) instead of `"url"`, one with
    /// a delivered name an `"out"`.
    public func document(mirrored resources: some Sequence<(url: String, id: String, sha256: String?,
                                                             mirrors: [String], out: String?)>) -> JSONValue {
        switch self {
        case .urls:
            return .array(resources.map { .string($0.url) })
        case .items:
            let items = resources.map { resource in
                JSONValue.object([JSONMember("imageUrlString", .string(resource.url))] + Self.checksum(resource.sha256)
                                 + [JSONMember("uuid", .string(resource.id))])
            }
            return .object([JSONMember("items", .array(items))])
        case .objects:
            return .array(resources.map {
                let url = $0.mirrors.isEmpty ? JSONMember("url", .string($0.url))
                    : JSONMember("urls", .array(([$0.url] + $0.mirrors).map(JSONValue.string)))
                let out = $0.out.map { [JSONMember("out", .string($0))] } ?? []
                return .object([JSONMember("id", .string($0.id))] + out + Self.checksum($0.sha256) + [url])
            })
        }
    }

    private static func checksum(_ sha256: String?) -> [JSONMember] {
        sha256.map { [JSONMember("sha256", .string($0))] } ?? []
    }
}
