import FarmJSON
import FarmManifest
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmSystem
import Foundation

/// The paged JSON API of a chaos run (SPEC §7), served by the chaos origin at `/api/paged`: `pages` pages
/// of `perPage` items (`{"id": "p<n>", "metadata": {"title": "Item <n>", "cover": {"url": …}}}`, the
/// URL a small PNG of the corpus) naming the next as `"nextPage": N`. Each page is throttled to last about
/// `pageSeconds`, so that the follower the chaos kills is often in the middle of one. Its items are a
/// list of the corpus (`ChaosCorpus.makeItems`), so the verdict checks their jobs and bytes like any other's;
/// `findings` checks what only a paged list has. Used by the main thread only.
final class PagedList {
    static let name = "paged"
    static let path = "/api/paged"

    let pages: Int
    let items: [Resource]
    private let origin: Origin
    /// When the chaos last killed the follower: a page request that arrived before is a dead one's.
    private var followerKilledAt = 0.0

    init(corpus: ChaosCorpus, pages: Int, perPage: Int, pageSeconds: Double, itemSeconds: Double) throws {
        self.pages = pages
        origin = corpus.origin
        items = try corpus.makeItems(of: Self.name, count: pages * perPage, seconds: itemSeconds)
        let objects = items.map { item in
            PagedAPI.item(id: Self.id(item.index), url: corpus.origin.url(for: item.path), title: Self.title(item.index))
        }
        let served = PagedAPI.pages(objects, perPage: perPage)
        origin.servePages(at: Self.path, pages: served)
        for (index, page) in served.enumerated() {
            let rate = max(64, Int(Double(page.count) / pageSeconds))
            origin.inject(.throttle(bytesPerSecond: rate), at: Self.path + "?page=" + String(index + 1))
        }
    }

    static func id(_ index: Int) -> String { "p\(index)" }
    static func title(_ index: Int) -> String { "Item \(index)" }

    /// `farm add` of the API, named `paged`.
    var addArguments: [String] {
        ["add", origin.url(for: Self.path), "--name", Self.name, "--items", "/consumables",
         "--url", "/metadata/cover/url", "--id", "/id", "--title", "/metadata/title", "--next", "/nextPage"]
    }

    /// Whether a live follower is receiving a page now (its answer has begun and not ended).
    var pageInFlight: Bool {
        origin.requests(for: Self.path).contains {
            $0.arrived > followerKilledAt && $0.ended == nil && $0.bodyBytes > 0
        }
    }

    func followerKilled(at time: Double) {
        followerKilledAt = time
    }

    /// What is wrong with the paged list on the final spool, beyond its resources (which the verdict checks
    /// as any list's): it must be Finished with every page in, `farm export` must give exactly the API's
    /// ids and URLs in its order, and `farm status` every item's title.
    func findings(_ farm: FarmCommand) -> [String] {
        var found: [String] = []
        let summary = Self.output(farm, ["status", "--json"]).flatMap { JSON.decode(StatusDocument.self, from: $0) }
        if let list = summary?.lists.first(where: { $0.name == Self.name }) {
            if list.state != .finished { found.append("the paged list is \(list.state.rawValue), not Finished") }
            let progress = list.paging
            if progress?.done != true {
                found.append("pages.done is \(progress.map { "\($0.done)" } ?? "missing"), not true")
            }
            if progress?.fetched != pages {
                found.append("pages.fetched is \(progress.map { "\($0.fetched)" } ?? "missing"), not \(pages)")
            }
            if list.total != items.count { found.append("total is \(list.total), not \(items.count)") }
            if let error = progress?.error { found.append("the paged list's error: \(error)") }
        } else {
            found.append("the paged list is not in farm status --json")
        }
        let export = Self.output(farm, ["export", Self.name, "--shape", "objects"])
        if let export, let exported = try? Manifest.parseList(json: export, name: Self.name),
           exported.form == .objects {
            found += orderFindings(exported.resources.map { ($0.id ?? "?", $0.url) })
        } else {
            found.append("farm export \(Self.name) gave no JSON array of objects")
        }
        let view = Self.output(farm, ["status", Self.name, "--json"]).flatMap { JSON.decode(ListStatus.self, from: $0) }
        for row in view?.resources ?? [] where items.indices.contains(row.index) {
            if row.title != Self.title(row.index) {
                found.append("\(Self.id(row.index)): title \(row.title ?? "none"), not \(Self.title(row.index))")
            }
        }
        return found
    }

    /// The exported (id, URL) pairs against the API's: duplicates, missing ids, and the first place the
    /// order differs.
    private func orderFindings(_ exported: [(id: String, url: String)]) -> [String] {
        var found: [String] = []
        let wanted = items.map { (id: Self.id($0.index), url: origin.url(for: $0.path)) }
        var seen: [String: Int] = [:]
        for pair in exported { seen[pair.id, default: 0] += 1 }
        for (id, times) in seen.sorted(by: { $0.key < $1.key }) where times > 1 {
            found.append("export: \(id) is there \(times) times")
        }
        let missing = wanted.filter { seen[$0.id] == nil }
        if !missing.isEmpty {
            found.append("export: \(missing.count) id(s) missing: " + missing.prefix(10).map(\.id).joined(separator: ", "))
        }
        for (id, _) in seen where !wanted.contains(where: { $0.id == id }) {
            found.append("export: \(id) is no item of the API")
        }
        if let first = zip(exported, wanted).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            found.append("export: position \(first) is \(exported[first].id) \(exported[first].url), "
                + "not \(wanted[first].id) \(wanted[first].url)")
        }
        return found
    }

    /// What `farm <arguments>` printed, when it exited 0.
    private static func output(_ farm: FarmCommand, _ arguments: [String]) -> [UInt8]? {
        guard let result = try? farm.run(arguments), result.status == 0 else { return nil }
        return Array(result.output.utf8)
    }
}
