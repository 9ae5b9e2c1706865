import FarmSystem
import Foundation
import NIOCore

/// One resource the origin serves: its bytes, type, strong ETag and Last-Modified (whole seconds since the
/// epoch, and as sent). Immutable, shared by requests.
struct Fixture: Sendable {
    let body: ByteBuffer
    let contentType: String
    let etag: String
    let modified: Int
    let lastModified: String

    init(bytes: some Collection<UInt8>, contentType: String, modified: Int = time(nil)) {
        body = ByteBuffer(bytes: bytes)
        self.contentType = contentType
        etag = Self.etag(of: bytes)
        self.modified = modified
        lastModified = HTTPDate.format(modified)
    }

    /// A strong ETag derived from the bytes alone (FNV-1a 64 and the length), so the same bytes served
    /// again, even by another origin, keep their validator, and any change of content changes it.
    static func etag(of bytes: some Collection<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let fold = { (byte: UInt8) in
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        if bytes.withContiguousStorageIfAvailable({ $0.forEach(fold) }) == nil { bytes.forEach(fold) }
        return "\"" + String(hash, radix: 16) + "-" + String(bytes.count, radix: 16) + "\""
    }

    /// The Content-Type for a file served from a directory, by its extension.
    static func contentType(forFileNamed name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "pdf": "application/pdf"
        case "zip": "application/zip"
        case "json": "application/json"
        case "html", "htm": "text/html; charset=utf-8"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}

/// What an origin serves: fixtures registered in memory, then files under directories mounted at a path
/// prefix. Owned by one origin; the test's threads write it and the origin's event loops read it, so
/// every access takes the lock.
final class Catalog: Sendable {
    private struct Mount: Sendable {
        var prefix: String
        var directory: String
    }

    private let fixtures = Locked<[String: Fixture]>([:])
    private let mounts = Locked<[Mount]>([])
    /// Paths that serve a paged API, with the query parameter that picks the page.
    private let paged = Locked<[String: String]>([:])

    func servePages(at path: String, parameter: String) {
        paged.withLock { $0[path] = parameter }
    }

    /// What a request for `path` with `query` is served from and has its faults set on: `path`, or for a
    /// paged API `path?<parameter>=<value>`, the page the query asks for (the first, `1`, without one).
    func key(_ path: String, query: String?) -> String {
        guard let parameter = paged.withLock({ $0[path] }) else { return path }
        let value = (query ?? "").split(separator: "&").lazy.compactMap { pair -> Substring? in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return parts.count == 2 && parts[0] == parameter ? parts[1] : nil
        }.last.map(String.init) ?? "1"
        return path + "?" + parameter + "=" + value
    }

    /// Serves `bytes` at `path`. Last-Modified is now, and always later than the bytes it replaces had, so
    /// that new bytes are newer for If-Modified-Since too.
    func add(_ bytes: [UInt8], contentType: String, at path: String) {
        fixtures.withLock { fixtures in
            let modified = max(time(nil), (fixtures[path]?.modified ?? 0) + 1)
            fixtures[path] = Fixture(bytes: bytes, contentType: contentType, modified: modified)
        }
    }

    func remove(_ path: String) {
        fixtures.withLock { $0[path] = nil }
    }

    func mount(_ directory: String, at prefix: String) {
        let prefix = prefix.hasSuffix("/") ? prefix : prefix + "/"
        mounts.withLock { $0.append(Mount(prefix: prefix, directory: directory)) }
    }

    /// The resource at `path` (as received, percent-encoded), or nil.
    func lookup(_ path: String) -> Fixture? {
        if let fixture = fixtures.withLock({ $0[path] }) { return fixture }
        for mount in mounts.withLock({ $0 }).reversed() where path.hasPrefix(mount.prefix) {
            if let fixture = file(String(path.dropFirst(mount.prefix.count)), in: mount.directory) {
                return fixture
            }
        }
        return nil
    }

    /// A regular file under `directory`, read afresh so a test may change it between requests. A name with
    /// an empty, `.` or `..` component is refused: nothing outside the directory is ever served.
    private func file(_ encoded: String, in directory: String) -> Fixture? {
        guard let relative = encoded.removingPercentEncoding else { return nil }
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return nil }
        let full = directory + "/" + relative
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue,
              let data = FileManager.default.contents(atPath: full) else { return nil }
        let modified = (try? FileManager.default.attributesOfItem(atPath: full)[.modificationDate] as? Date)
            .map { Int($0.timeIntervalSince1970) } ?? time(nil)
        return Fixture(bytes: [UInt8](data), contentType: Fixture.contentType(forFileNamed: relative),
                       modified: modified)
    }
}
