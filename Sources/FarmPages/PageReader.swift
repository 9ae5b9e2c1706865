import FarmJSON
import FarmLists
import FarmSpool
import FarmSystem

/// Reads one page of a paged JSON API (SPEC §7) by the pointers its source was added with: the items
/// (URL, id, title, caption of each), the next page's URL, and in the first page the list's title and
/// cover. `farm add` makes one to check the pointers; the follower makes one per list it follows.
/// A value; any thread.
public struct PageReader: Sendable {
    public let source: PagedSource
    private let items: JSONPointer
    private let url: JSONPointer
    private let id: JSONPointer?
    private let title: JSONPointer?
    private let caption: JSONTemplate?
    private let next: JSONPointer?
    private let listTitle: JSONPointer?
    private let listCover: JSONPointer?

    /// Checks `source`: every pointer must be one, the caption a template, the first page an http(s)
    /// URL, the page parameter a name. Throws one sentence naming the option at fault.
    public init(_ source: PagedSource) throws(PageError) {
        self.source = source
        func pointer(_ option: String, _ text: String?) throws(PageError) -> JSONPointer? {
            guard let text else { return nil }
            do { return try JSONPointer(text) } catch { throw PageError("--\(option): \(error.reason)") }
        }
        guard Self.isWebURL(source.first) else {
            throw PageError("\(source.first) is not an http(s) URL: a paged source is read from a JSON API")
        }
        guard !source.pageParameter.isEmpty,
              source.pageParameter.utf8.allSatisfy({ Self.isUnreserved($0) }) else {
            throw PageError("--page-param \(source.pageParameter): a query parameter name is letters, digits, - . _ ~")
        }
        items = try pointer("items", source.items)!
        url = try pointer("url", source.url)!
        id = try pointer("id", source.id)
        title = try pointer("title", source.title)
        next = try pointer("next", source.next)
        listTitle = try pointer("list-title", source.listTitle)
        listCover = try pointer("list-cover", source.listCover)
        if let template = source.caption {
            do { caption = try JSONTemplate(template) } catch { throw PageError("--caption: \(error.reason)") }
        } else {
            caption = nil
        }
    }

    /// One item of a page: what the pointers found in it.
    public struct Item: Sendable, Equatable {
        public var url: String
        public var id: String?
        public var title: String?
        public var caption: String?

        public init(url: String, id: String? = nil, title: String? = nil, caption: String? = nil) {
            self.url = url
            self.id = id
            self.title = title
            self.caption = caption
        }
    }

    /// What one page holds.
    public struct Page: Sendable {
        /// The items with a URL, in the page's order.
        public var items: [Item]
        /// Items without a URL (skipped).
        public var skipped: Int
        /// The next page's URL; nil when the page ends the list.
        public var next: String?
        /// What `--list-title` and `--list-cover` found (they are read in the first page).
        public var title: String?
        public var cover: String?
    }

    /// Reads the page `bytes` fetched from `pageURL`, against which relative item and cover URLs are
    /// resolved. Throws, in a few words, when they are not JSON, when
    /// `--items` finds no array, or when `--next` finds something that is no page.
    public func read(_ bytes: [UInt8], from pageURL: String) throws(PageError) -> Page {
        let document: JSONValue
        do { document = try JSONParser.parse(bytes) } catch {
            let (line, column) = bytes.withUnsafeBufferPointer { TextPosition.of(offset: error.offset, in: $0) }
            throw PageError("not JSON: line \(line), column \(column): \(error.reason)")
        }
        let found = items.values(in: document)
        guard let first = found.first else { throw PageError("--items \(items) finds nothing") }
        guard found.count == 1, case .array(let elements) = first else {
            throw PageError("--items \(items) finds \(found.count == 1 ? first.kind : "several values"), not an array")
        }
        let cover = listCover.flatMap { $0.text(in: document) }
        var page = Page(items: [], skipped: 0, next: try nextURL(in: document, after: pageURL),
                        title: listTitle.flatMap { $0.text(in: document) },
                        cover: cover.map { RelativeURL.resolve($0, against: pageURL) })
        page.items.reserveCapacity(elements.count)
        for element in elements {
            // A URL is a string: a number or a list of them is no URL.
            guard let found = url.values(in: element).first, case .string(let link) = found, !link.isEmpty else {
                page.skipped += 1
                continue
            }
            page.items.append(Item(url: RelativeURL.resolve(link, against: pageURL),
                                   id: id.flatMap { $0.text(in: element) }, title: title.flatMap { $0.text(in: element) }, caption: caption?.render(element)))
        }
        return page
    }

    /// The page `--next` points at: a number or string N is the first page's URL with the page parameter
    /// set to N, an absolute http(s) URL is fetched as it is; null, nothing or "" ends the list.
    private func nextURL(in document: JSONValue, after pageURL: String) throws(PageError) -> String? {
        guard let next, let value = next.values(in: document).first else { return nil }
        switch value {
        case .null: return nil
        case .number(let number): return Self.url(source.first, setting: source.pageParameter, to: number.literal)
        case .string(let text):
            if text.isEmpty { return nil }
            if Self.isWebURL(text) { return text }
            return Self.url(source.first, setting: source.pageParameter, to: text)
        default:
            throw PageError("--next \(next) finds \(value.kind), not a page number or URL")
        }
    }

    static func isWebURL(_ text: String) -> Bool { WebScheme(of: text) != nil }

    /// `url` with the query parameter `name` set to `value` (percent-encoded): an earlier value of it
    /// goes, the other parameters and a fragment stay where they were.
    public static func url(_ url: String, setting name: String, to value: String) -> String {
        var base = Substring(url), fragment = Substring("")
        if let hash = base.firstIndex(of: "#") {
            fragment = base[hash...]
            base = base[..<hash]
        }
        var query: [Substring] = []
        if let question = base.firstIndex(of: "?") {
            query = base[base.index(after: question)...].split(separator: "&").filter {
                $0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) != name
            }
            base = base[..<question]
        }
        query.append(Substring(name + "=" + percentEncoded(value)))
        return base + "?" + query.joined(separator: "&") + fragment
    }

    /// The value of the query parameter `name` in `url` as written (the last one, should it repeat).
    public static func value(of name: String, in url: String) -> String? {
        var base = Substring(url)
        if let hash = base.firstIndex(of: "#") { base = base[..<hash] }
        guard let question = base.firstIndex(of: "?") else { return nil }
        return base[base.index(after: question)...].split(separator: "&").compactMap { pair -> Substring? in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return parts.count == 2 && parts[0] == name ? parts[1] : nil
        }.last.map(String.init)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
    }

    private static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if isUnreserved(byte) {
                encoded.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return encoded
    }
}

/// Why a page of a paged source (or the source itself) cannot be read, in a few words that name the
/// option at fault: "--items /consumables finds nothing". A value type; any thread.
public struct PageError: Error, Sendable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
