import Crypto
import FarmJSON
import FarmLists
import FarmOrigin
import FarmSpool
import FarmSystem
import FarmZip
import Foundation

/// What one resource of the corpus is, and so what farm must make of it.
enum ResourceKind: String, CaseIterable {
    case jpg, png, pdf, zipPNG, zipPDF
    /// Not served: must end in error (HTTP 404).
    case missing
    /// An HTML page named .jpg: must end in error (unsupported content).
    case html

    var succeeds: Bool { self != .missing && self != .html }

    /// The extension of the stored download.
    var fileExtension: String {
        switch self {
        case .jpg, .html, .missing: "jpg"
        case .png: "png"
        case .pdf: "pdf"
        case .zipPNG, .zipPDF: "zip"
        }
    }
}

/// One resource: where the origin serves it, its bytes' digest, and what a ZIP holds.
struct Resource {
    let list: String
    let index: Int
    let path: String
    let kind: ResourceKind
    let size: Int
    let sha256: String
    /// A ZIP's only entry: its name and digest.
    let entry: (name: String, sha256: String)?

    /// The resource's job, by the list's order: its number is its index unless a page whose append was
    /// killed before its commit left numbers unused (see "Pages" in FarmLists); the next ones went to the
    /// page fetched again.
    func job(order: [Int]) -> JobName {
        JobName(list: ListID.of(name: list), index: order.indices.contains(index) ? order[index] : index)
    }

    /// The job numbers of list `name` by index, as its order file says.
    static func order(ofList name: String, in spool: Spool) -> [Int] {
        let id = ListID.of(name: name)
        return Lists(spool).order(ofList: id, total: spool.list(id)?.total ?? 0).numbers
    }
}

/// Every list the run may add, served by the in-process origin: the base manifest (a zip of four JSON
/// lists, one per kind plus a few bad resources), and small extra lists made on demand for the
/// coordinators that the chaos kills and for the overflow rounds. Every resource is throttled so that
/// transfers last long enough to be killed half-way. Used by the main thread only.
final class ChaosCorpus {
    let origin: Origin
    private let directory: String
    /// Seconds a small transfer should last; large ones last about five times longer.
    private let smallSeconds: Double
    private var random: SplitMix64
    private(set) var lists: [String: [Resource]] = [:]
    /// Every manifest made, in order (base first): re-added at the end, so the union is known.
    private(set) var manifests: [String] = []

    init(origin: Origin, directory: String, seed: UInt64, smallSeconds: Double) {
        self.origin = origin
        self.directory = directory
        self.smallSeconds = smallSeconds
        random = SplitMix64(seed: seed)
    }

    var resources: [Resource] { lists.values.flatMap { $0 } }
    /// The bytes of every URL once: a URL in several lists is served once (download once, SPEC §7).
    var bytes: Int {
        var seen: Set<String> = []
        return resources.reduce(0) { $0 + (seen.insert($1.path).inserted ? $1.size : 0) }
    }

    /// The base manifest: `count` resources in four lists, a tenth of them large, and four bad ones.
    func makeBase(count: Int) throws -> String {
        let kinds: [(String, [ResourceKind])] = [
            ("photos.json", [.jpg]), ("pictures.json", [.png]), ("documents.json", [.pdf]),
            ("archives.json", [.zipPNG, .zipPDF]),
        ]
        let shares = [0.3, 0.3, 0.2, 0.2]
        var entries: [(name: String, bytes: [UInt8])] = []
        for (n, (name, choices)) in kinds.enumerated() {
            let items = max(1, Int(Double(count) * shares[n]))
            var made: [Resource] = []
            for index in 0..<items {
                made.append(try make(list: name, index: index, kind: choices[index % choices.count],
                                     large: index % 10 == 7))
            }
            if n == 0 {
                for kind in [ResourceKind.missing, .html, .missing, .html] {
                    made.append(try make(list: name, index: made.count, kind: kind, large: false))
                }
            }
            lists[name] = made
            entries.append(("base/" + name, try manifestJSON(made)))
        }
        let path = directory + "/base.zip"
        try ZipWriter.write(path: path, entries: entries)
        manifests.append(path)
        return path
    }

    /// A new JSON list `name` of `count` small resources of every kind; returns the manifest's path.
    func makeList(_ name: String, count: Int) throws -> String {
        let kinds: [ResourceKind] = [.jpg, .png, .pdf, .zipPNG, .zipPDF]
        let made = try (0..<count).map { try make(list: name, index: $0, kind: kinds[$0 % kinds.count], large: false) }
        lists[name] = made
        let path = directory + "/" + name
        try Data(manifestJSON(made)).write(to: URL(fileURLWithPath: path))
        manifests.append(path)
        return path
    }

    /// A list `name` of `count` URLs of the lists made so far, picked at random: each is then in two lists,
    /// and download once (SPEC §7) transfers it once for both, a transfer killed half-way resuming once
    /// for all who wait on it.
    func makeRepeat(_ name: String, count: Int) throws -> String {
        var pool = resources.sorted { $0.path < $1.path }
        pool.shuffle(using: &random)
        let made = pool.prefix(count).enumerated().map { index, resource in
            Resource(list: name, index: index, path: resource.path, kind: resource.kind, size: resource.size,
                     sha256: resource.sha256, entry: resource.entry)
        }
        lists[name] = made
        let path = directory + "/" + name
        try Data(manifestJSON(made)).write(to: URL(fileURLWithPath: path))
        manifests.append(path)
        return path
    }

    /// Gives the PNG at `path` new bytes at the origin, in every list that has it: what
    /// a sync must bring the farm to.
    func change(_ path: String) {
        let seed = random.next()
        guard let old = resources.first(where: { $0.path == path }), old.kind == .png else { return }
        let bytes = Pictures.png(size: old.size + 1 + Int(seed % 997), seed: seed)
        origin.serve(path: path, bytes: bytes)  // the path's throttle stays
        for (list, resources) in lists {
            lists[list] = resources.map { resource in
                resource.path != path ? resource
                    : Resource(list: resource.list, index: resource.index, path: path, kind: .png, size: bytes.count,
                               sha256: SHA256.hex(bytes), entry: nil)
            }
        }
    }

    /// A list `name` of `count` PNGs of a few MB, each response slow enough that one connection would take
    /// twenty small transfers' time: added with several connections (SPEC §14), they are fetched as pieces
    /// by every worker while workers are killed.
    func makePieces(_ name: String, count: Int) throws -> String {
        let made = (0..<count).map { index -> Resource in
            let bytes = Pictures.png(size: Int.random(in: 2_000_000...4_000_000, using: &random), seed: random.next())
            let path = "/" + String(name.dropLast(5)) + "/\(index).png"
            origin.serve(path: path, bytes: bytes)
            origin.inject(.throttle(bytesPerSecond: max(65_536, Int(Double(bytes.count) / (smallSeconds * 20)))),
                          at: path)
            return Resource(list: name, index: index, path: path, kind: .png, size: bytes.count,
                            sha256: SHA256.hex(bytes), entry: nil)
        }
        lists[name] = made
        let path = directory + "/" + name
        try Data(manifestJSON(made)).write(to: URL(fileURLWithPath: path))
        manifests.append(path)
        return path
    }

    /// `count` small PNG resources of list `name` that no manifest names (a paged API's items: the API
    /// lists them), each transfer lasting about `seconds`.
    func makeItems(of name: String, count: Int, seconds: Double) throws -> [Resource] {
        let made = try (0..<count).map { try make(list: name, index: $0, kind: .png, large: false, seconds: seconds) }
        lists[name] = made
        return made
    }

    private func manifestJSON(_ resources: [Resource]) throws -> [UInt8] {
        JSON.encode(resources.map { origin.url(for: $0.path) })
    }

    private func make(list: String, index: Int, kind: ResourceKind, large: Bool, seconds: Double? = nil) throws
        -> Resource {
        let seed = random.next()
        let stem = "/" + (list.hasSuffix(".json") ? String(list.dropLast(5)) : list) + "/\(index)"
        func size(_ small: ClosedRange<Int>, _ big: ClosedRange<Int>) -> Int {
            Int.random(in: large ? big : small, using: &random)
        }
        var bytes: [UInt8]
        var entry: (String, [UInt8])?
        switch kind {
        case .jpg:
            let side = large ? 560 : Int.random(in: 48...140, using: &random)
            bytes = try Pictures.jpeg(width: side, height: side * 3 / 4, seed: seed, scratch: directory)
        case .png:
            bytes = Pictures.png(size: size(6_000...40_000, 300_000...700_000), seed: seed)
        case .pdf:
            bytes = Pictures.pdf(title: "\(list) \(index)", size: size(2_000...20_000, 200_000...400_000), seed: seed)
        case .zipPNG:
            entry = ("picture-\(index).png", Pictures.png(size: size(6_000...30_000, 300_000...600_000), seed: seed))
            bytes = try Pictures.zip(entry: entry!.0, bytes: entry!.1, scratch: directory, seed: seed)
        case .zipPDF:
            entry = ("document-\(index).pdf",
                     Pictures.pdf(title: "zip \(index)", size: size(2_000...20_000, 200_000...400_000), seed: seed))
            bytes = try Pictures.zip(entry: entry!.0, bytes: entry!.1, scratch: directory, seed: seed)
        case .missing:
            bytes = Array("404 Not Found\n".utf8)  // what the origin answers; not registered
        case .html:
            bytes = Array("<!doctype html><html><body>not a picture \(seed)</body></html>\n".utf8)
        }
        let path = stem + "." + (kind == .html || kind == .missing ? "jpg" : kind.fileExtension)
        if kind != .missing {
            origin.serve(path: path, bytes: bytes)
            let seconds = seconds ?? smallSeconds * (large ? 5 : 1)
            origin.inject(.throttle(bytesPerSecond: max(2048, Int(Double(bytes.count) / seconds))), at: path)
        }
        return Resource(list: list, index: index, path: path, kind: kind, size: bytes.count,
                        sha256: SHA256.hex(bytes), entry: entry.map { ($0.0, SHA256.hex($0.1)) })
    }
}
