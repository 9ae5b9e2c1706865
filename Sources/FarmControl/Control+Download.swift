import FarmHosts
import FarmJSON
import FarmSpool
import FarmSystem
import FarmTransfer

extension Control {
    /// One download as a client of aria2's RPC asks for it (SPEC §16): one resource at one or more mirrors,
    /// with the options of its own that farm keeps per list. A value.
    public struct Download: Sendable, Equatable {
        /// The resource's URL first, then its mirrors (SPEC §14).
        public var urls: [String]
        /// The name it is delivered under in `folder` (aria2's `out`); nil: the URL's last segment.
        public var out: String?
        /// The SHA-256 the bytes must have (aria2's `checksum=sha-256=…`), 64 hex digits.
        public var sha256: String?
        /// Where the done download appears (aria2's `dir`).
        public var folder: String
        /// `Name: value` lines sent with every request (aria2's `header`).
        public var headers: [String]
        /// Connections at once, as pieces (SPEC §14); nil or 1: one.
        public var connections: Int?

        public init(urls: [String], out: String? = nil, sha256: String? = nil, folder: String, headers: [String] = [],
                    connections: Int? = nil) {
            self.urls = urls
            self.out = out
            self.sha256 = sha256
            self.folder = folder
            self.headers = headers
            self.connections = connections
        }
    }

    /// Where `addDownload` put the download: its list (a list of its own, named `aria2-<hex>.json`) and the
    /// resource's id in it.
    public struct AddedDownload: Sendable, Equatable {
        public let listID: String
        public let listName: String
        public let resourceID: String
    }

    /// aria2's `addUri`: one resource in a list of its own, so its options (folder, headers, connections) are
    /// the list's, added as `farm add` adds a list of the objects shape with its `--header`, `--connections`
    /// and `--out FOLDER --name {name}`: the same checks, the same refusals.
    public func addDownload(_ download: Download) throws(ControlError) -> AddedDownload {
        guard let first = download.urls.first else { throw ControlError(.editRefused, "a download needs a URL") }
        for url in download.urls where HostKey(url: url) == nil {
            throw ControlError(.editRefused, "\(url) is not an http(s) URL")
        }
        // Any kind of bytes, as aria2 keeps them: its clients expect any file to download (SPEC §15's `--accept any`).
        let request = try Self.requestOptions(headers: download.headers, cookieFile: nil, userAgent: nil, proxy: nil,
                                              connections: download.connections, accept: "any")
        let delivery = try Self.delivery(folder: download.folder, template: "{name}")
        let nonce = Nonce.nextHex()
        let name = "aria2-\(nonce).json"
        var item: [JSONMember] = [JSONMember("id", .string(nonce))]
        item.append(download.urls.count > 1 ? JSONMember("urls", .array(download.urls.map { .string($0) }))
            : JSONMember("url", .string(first)))
        if let out = download.out { item.append(JSONMember("out", .string(out))) }
        if let sha256 = download.sha256 { item.append(JSONMember("sha256", .string(sha256))) }
        let folder = spool.scratch.path("aria2")
        let path = folder + "/" + name
        do {
            try FileSystem.mkdir(folder, mode: 0o700)
            try FileSystem.createFile(path, JSON.encode(JSONValue.array([.object(item)])))
        } catch {
            throw ControlError(.spoolFailed, spool.tmp, cause: error)
        }
        defer {
            try? FileSystem.unlink(path)
            try? FileSystem.rmdir(folder)
        }
        _ = try add(path, request: request, delivery: delivery)
        return AddedDownload(listID: ListID.of(name: name), listName: name, resourceID: nonce)
    }
}
