import FarmJSON
import FarmLists
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation

/// A farm with a paged catalogue API on its origin (SPEC §7): `count` items of `perPage` a page at
/// `/api/<name>`, each item's picture a small PNG at `/img/<name>/<n>.png`, and a cover at
/// `/img/<name>/cover.png`. Items are `b<n>` with title "Book n" and two authors.
final class PagedFarm {
    let farm: RunningFarm
    var origin: Origin { farm.origin }
    var spool: Spool { farm.spool }
    /// The picture of each item, by `<list>/<id>`.
    private(set) var pictures: [String: [UInt8]] = [:]
    private(set) var covers: [String: [UInt8]] = [:]

    init() throws {
        farm = try RunningFarm()
    }

    static func png(_ seed: Int, size: Int = 1500) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<size - 8).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ seed &* 7) }
    }

    func item(_ list: String, _ n: Int) -> JSONValue {
        PagedAPI.item(id: "b\(n)", url: origin.url(for: "/img/\(list)/\(n).png"), title: "Book \(n)",
                      authors: ["Author \(n)", "Co \(n)"])
    }

    /// Serves the API of list `list` and its pictures; returns the pages served (their JSON).
    @discardableResult
    func serve(_ list: String, count: Int, perPage: Int, next: PagedAPI.Next = .number,
               pageRate: Int? = nil) -> [[UInt8]] {
        let items = (0..<count).map { item(list, $0) }
        for n in 0..<count {
            let picture = Self.png(n + list.utf8.count * 1000)
            origin.serve(path: "/img/\(list)/\(n).png", bytes: picture)
            pictures["\(list)/b\(n)"] = picture
        }
        let cover = Self.png(99_999, size: 3000)
        origin.serve(path: "/img/\(list)/cover.png", bytes: cover)
        covers[list] = cover
        let metadata = JSONValue.object([
            JSONMember("cover", .object([JSONMember("url", .string(origin.url(for: "/img/\(list)/cover.png")))])),
            JSONMember("title", .string("The \(list)")),
        ])
        let pages = PagedAPI.pages(items, perPage: perPage, next: next, metadata: metadata)
        origin.servePages(at: "/api/\(list)", pages: pages)
        if let pageRate {
            for page in pages.indices { origin.inject(.throttle(bytesPerSecond: pageRate), at: pagePath(list, page + 1)) }
        }
        return pages
    }

    func pagePath(_ list: String, _ page: Int) -> String { "/api/\(list)?page=\(page)" }

    /// `farm add` of the API of `list`, with every option of SPEC §7's example.
    func add(_ list: String, extra: [String] = []) throws {
        try farm.must(["add", origin.url(for: "/api/\(list)"), "--name", list, "--items", "/consumables",
                       "--url", "/metadata/cover/url", "--id", "/id", "--title", "/metadata/title",
                       "--caption", "By: {/metadata/authors/*/name}", "--next", "/nextPage", "--page-param", "page",
                       "--list-title", "/metadata/title", "--list-cover", "/metadata/cover/url"] + extra)
    }

    var id: (String) -> String { { ListID.of(name: $0) } }

    /// The list `list` in `farm status --json` (the whole-spool summary); nil when it is not there.
    func summary(_ list: String) throws -> ListStatus? {
        let output = try farm.must(["status", "--json"])
        return JSON.decode(StatusDocument.self, from: Array(output.utf8))?.lists.first { $0.name == list }
    }

    /// The same list's object as FarmJSON parses it, for the keys a list shows or leaves out; nil when it
    /// is not there.
    func summaryObject(_ list: String) throws -> JSONValue? {
        let output = try farm.must(["status", "--json"])
        guard case .array(let lists)? = (try? JSONParser.parse(Array(output.utf8)))?["lists"] else { return nil }
        return lists.first { $0["name"] == .string(list) }
    }

    /// `text`, a JSON document of the test's, parsed: what a raw key is expected to hold.
    static func json(_ text: String) -> JSONValue {
        try! JSONParser.parse(Array(text.utf8))
    }

    /// `farm status LIST --json`; nil when it is not a list's view.
    func view(_ list: String) throws -> ListStatus? {
        let output = try farm.must(["status", list, "--json"])
        return JSON.decode(ListStatus.self, from: Array(output.utf8))
    }

    func pages(_ list: String) -> PageState? { Lists(spool).pageState(ofList: id(list)) }

    /// Every resource of `list` is done and holds the bytes its URL served, in the API's order; returns
    /// what is wrong, or nil.
    func checkDone(_ list: String, count: Int) throws -> String? {
        let view = try view(list)
        let rows = view?.resources ?? []
        guard rows.count == count else { return "\(rows.count) resources, not \(count)" }
        for (index, row) in rows.enumerated() {
            guard row.index == index, row.id == "b\(index)" else {
                return "row \(index) is \(row.id) at \(row.index)"
            }
            guard row.status == .done, let file = row.file else {
                return "b\(index) is \(row.status.rawValue): \(row.error ?? "")"
            }
            guard let bytes = FileManager.default.contents(atPath: file), [UInt8](bytes) == pictures["\(list)/b\(index)"] else {
                return "b\(index): the bytes of \(file) are not what the origin served"
            }
        }
        return nil
    }
}
