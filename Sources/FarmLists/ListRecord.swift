import FarmJSON
import FarmSpool
import FarmSystem

/// What `lists/<id>.json` holds: one list of a manifest, as the coordinator published it.
/// Written once by the coordinator; read by the status, the watcher and `reload`.
public struct ListRecord: Equatable, Sendable {
    /// The name farm shows (the JSON file's name, e.g. "Set 1.json").
    public var name: String
    /// How many resources the list has: as added in the file, as now through `Spool.list(_:)`.
    public var total: Int
    /// A digest of the list's URLs and ids, so adding the same list again is recognised.
    public var digest: String
    /// Where the manifest came from (a URL or a path), for the user's eyes only.
    public var source: String
    /// When it was added (ISO 8601).
    public var added: String
    /// The shape its JSON had (FarmManifest's `ListForm`: "urls", "items" or "objects"), which `farm
    /// export` writes it back in; nil for a list added by a farm that did not record it.
    public var shape: String?
    /// For a list read from a paged JSON API (SPEC §7): how its pages are read and followed; nil for a
    /// list read whole from a manifest.
    public var paged: PagedSource?
    /// What the list's requests carry (SPEC §12), without a secret; nil when they carry nothing of their own.
    public var request: RequestSummary?
    /// Where each done resource's download is delivered too (SPEC §12: `--out`, `--name`); nil: nowhere.
    public var delivery: Delivery?

    public init(name: String, total: Int, digest: String, source: String, added: String, shape: String? = nil,
                paged: PagedSource? = nil, request: RequestSummary? = nil, delivery: Delivery? = nil) {
        self.name = name
        self.total = total
        self.digest = digest
        self.source = source
        self.added = added
        self.shape = shape
        self.paged = paged
        self.request = request
        self.delivery = delivery
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}

/// Where a list's done resources are delivered (SPEC §12): `folder` (absolute) and the name template
/// below it, as `farm add --out --name` gave them (FarmLists' `DeliveryTemplate` reads it), and how.
public struct Delivery: Equatable, Sendable, JSONRecord {
    public var folder: String
    public var template: String
    /// `--link`: a hard link of the spool's file (its bytes, its mode) where DIR is on its file system.
    /// Nil or false: a file of the user's own, a reflink or a copy.
    public var link: Bool?
    /// The permission bits of a delivered copy: 0666 less the umask of the `farm add` (or `farm get`)
    /// that asked for it, since a worker's own umask is not the user's.
    public var mode: Int
    /// `--convert-links` (SPEC §18, wget's `-k`): once the list is finished, its delivered pages and
    /// stylesheets link to what was fetched by relative paths (FarmLists' LinkConversion.swift). Nil: false.
    public var convertLinks: Bool?

    public init(folder: String, template: String, link: Bool = false, mode: Int) {
        self.folder = folder
        self.template = template
        self.link = link ? true : nil
        self.mode = mode
    }

    /// Whether each delivery is a hard link of the spool's file.
    public var links: Bool { link == true }

    /// Whether the links of its delivered pages are rewritten once the list is finished.
    public var convertsLinks: Bool { convertLinks == true }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}

/// What a list's requests carry, as anyone may see it (SPEC §12): the headers' names, how many cookies,
/// the proxy without its password, the user agent. The values are in `lists/<list>.request` alone.
public struct RequestSummary: Equatable, Sendable, JSONRecord {
    public var headers: [String]
    public var cookies: Int
    public var proxy: String?
    public var userAgent: String?
    /// A recursive list's crawl (SPEC §18: "--no-robots turns both off and the list says so"); nil for any other.
    public var recursive: RecursiveSummary?

    public init(headers: [String], cookies: Int, proxy: String?, userAgent: String?) {
        self.headers = headers
        self.cookies = cookies
        self.proxy = proxy
        self.userAgent = userAgent
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}

/// What a recursive list follows, as anyone may see it: its level (`"inf"` for none) and whether it obeys
/// robots.txt (false with `--no-robots`), the rest of its options as `farm add` took them.
public struct RecursiveSummary: Equatable, Sendable, JSONRecord {
    public var level: String
    public var robots: Bool
    public var noParent: Bool
    public var spanHosts: Bool
    public var domains: [String]
    public var accept: [String]
    public var reject: [String]
    public var excludeDirs: [String]
    /// The seconds between two requests to the start host that its robots.txt asked (`Crawl-delay`).
    public var crawlDelay: Double?

    public init(level: String, robots: Bool, noParent: Bool, spanHosts: Bool, domains: [String], accept: [String],
                reject: [String], excludeDirs: [String], crawlDelay: Double? = nil) {
        self.level = level
        self.robots = robots
        self.noParent = noParent
        self.spanHosts = spanHosts
        self.domains = domains
        self.accept = accept
        self.reject = reject
        self.excludeDirs = excludeDirs
        self.crawlDelay = crawlDelay
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}

/// How a paged JSON API is read (SPEC §7): the first page's URL and the JSON Pointers given to `farm
/// add`, as the user wrote them (FarmPages parses them). Written once, in the list record.
public struct PagedSource: Equatable, Sendable, JSONRecord {
    /// The URL of the first page.
    public var first: String
    /// `--items`: the array of items in a page.
    public var items: String
    /// `--url`, `--id`, `--title`: inside one item.
    public var url: String
    public var id: String?
    public var title: String?
    /// `--caption`: a template whose `{PTR}` parts point inside one item.
    public var caption: String?
    /// `--next`: the next page in a page; nil: the list has one page.
    public var next: String?
    /// `--page-param`: the query parameter a page number or token goes in.
    public var pageParameter: String
    /// `--list-title`, `--list-cover`: in the first page.
    public var listTitle: String?
    public var listCover: String?

    public init(first: String, items: String, url: String, id: String? = nil, title: String? = nil,
                caption: String? = nil, next: String? = nil, pageParameter: String = "page",
                listTitle: String? = nil, listCover: String? = nil) {
        self.first = first
        self.items = items
        self.url = url
        self.id = id
        self.title = title
        self.caption = caption
        self.next = next
        self.pageParameter = pageParameter
        self.listTitle = listTitle
        self.listCover = listCover
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}

/// Every member but `shape`, `paged`, `request` and `delivery` is required.
extension ListRecord: JSONRecord {}

extension Spool {
    /// The published list with this id, or nil when there is none (or it does not parse). Its `total`
    /// is the count now: an edited list's order file has the last word (the record is written once).
    public func list(_ id: String) -> ListRecord? {
        guard var record = lists.record(id).flatMap({ JSON.decode(ListRecord.self, from: $0) }) else { return nil }
        if let count = editedCount(ofList: id) { record.total = count }
        return record
    }

    /// How many resources an edited list has now: one stat, not a read (nil when it was never edited).
    private func editedCount(ofList id: String) -> Int? {
        guard let st = try? FileSystem.stat(lists.orderPath(ofList: id)) else { return nil }
        return Int(st.size) / 4
    }
}
