import FarmJSON
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation

/// A running farm with a list whose source a test changes, then syncs (SPEC §7): resources are small PNGs
/// at `/r/<name>.png`, the list a local JSON file of `{"id", "url"}` objects (or, by URL, one the origin
/// serves).
final class SyncFarm {
    let farm: RunningFarm
    var origin: Origin { farm.origin }
    var spool: Spool { farm.spool }

    init() throws {
        farm = try RunningFarm()
    }

    static func png(_ seed: Int, size: Int = 1200) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + (0..<size - 8).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ seed &* 11 &+ seed >> 3) }
    }

    /// Serves the PNG of `seed` at `/r/<name>.png` and returns its path.
    @discardableResult
    func serve(_ name: String, seed: Int, size: Int = 1200) -> String {
        let path = "/r/\(name).png"
        origin.serve(path: path, bytes: Self.png(seed, size: size))
        return path
    }

    /// The list of `items` (id and URL path, in order) as `{"id", "url"}` objects, keys sorted.
    func document(_ items: [(id: String, path: String)]) -> JSONValue {
        .array(items.map { item in
            .object([JSONMember("id", .string(item.id)), JSONMember("url", .string(origin.url(for: item.path)))])
        })
    }

    /// The manifest's JSON for `items` (id and URL path, in order).
    func manifest(_ items: [(id: String, path: String)]) throws -> Data {
        Data(JSON.encode(document(items)))
    }

    /// Writes the manifest `<list>` in the farm's directory; returns its path.
    @discardableResult
    func write(_ list: String, _ items: [(id: String, path: String)]) throws -> String {
        let path = farm.dir.appending(list)
        try manifest(items).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The resources of `list` as `farm status LIST --json` shows them, in order.
    func rows(_ list: String) throws -> [ResourceStatus] {
        let output = try farm.must(["status", list, "--json"])
        return JSON.decode(ListStatus.self, from: Array(output.utf8))?.resources ?? []
    }

    func row(_ list: String, id: String) throws -> ResourceStatus? {
        try rows(list).first { $0.id == id }
    }

    /// What is wrong with `list` against `items` (ids and URL paths, in order): a resource not done, or whose
    /// file does not hold what the origin serves now at its URL, or an output in the list's folder that no
    /// resource names; nil when nothing is.
    func check(_ list: String, against items: [(id: String, path: String)]) throws -> String? {
        let rows = try rows(list)
        let ids = rows.map(\.id)
        guard ids == items.map(\.id) else { return "ids \(ids), not \(items.map(\.id))" }
        var named: Set<String> = []
        for (row, item) in zip(rows, items) {
            guard row.url == origin.url(for: item.path) else { return "\(item.id) has URL \(row.url)" }
            guard row.status == .done, let file = row.file else { return "\(item.id) is \(row.status.rawValue)" }
            guard let bytes = FileManager.default.contents(atPath: file) else { return "\(item.id): no \(file)" }
            guard let body = origin.etag(for: item.path), body == Self.etag(of: [UInt8](bytes)) else {
                return "\(item.id): \(file) does not hold what \(item.path) serves now"
            }
            for case let path? in [row.file, row.image, row.thumb] {
                named.insert((path as NSString).lastPathComponent)
            }
        }
        let folder = spool.outputDirectory(ofList: ListID.of(name: list))
        let stray = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !named.contains($0) }
        if !stray.isEmpty { return "outputs no resource names: \(stray.sorted())" }
        return nil
    }

    /// The origin's ETag for `bytes` (it derives it from the bytes alone).
    static func etag(of bytes: [UInt8]) -> String {
        let origin = Origin()
        origin.serve(path: "/x", bytes: bytes)
        return origin.etag(for: "/x") ?? ""
    }

    /// Waits until `list` has `count` resources, all done.
    func waitDone(_ list: String, count: Int, timeout: Double = 120) -> Bool {
        poll(timeout: timeout, every: 0.1) {
            guard let rows = try? rows(list) else { return false }
            return rows.count == count && rows.allSatisfy { $0.status == .done }
        }
    }
}
