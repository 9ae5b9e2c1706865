import Crypto
import FarmJSON
import FarmSpool
import FarmSystem
import SystemPackage

/// What `urls/<key>` holds (see Dedup.swift): the blob that holds a URL's valid result.
/// Written whole by rename; a record whose blob is gone names nothing (readers check the blob), nor
/// does one whose `blob` is no SHA-256 (`urlRecord(key:)` refuses it). `url`, `blob` and `size` are
/// required; nils are left out. A value.
public struct URLRecord: Equatable, Sendable, JSONRecord {
    public var url: String
    /// The blob's name in blobs/ (see BlobSlots.swift): a slot of its size, or the bytes' SHA-256.
    public var blob: String
    public var size: Int
    /// jpg, png, pdf or zip.
    public var kind: String?
    /// The validators of the response the bytes came from, which every job served from them records in
    /// its outcome, so that `farm sync` revalidates those too.
    public var etag: String?
    public var modified: String?

    public init(url: String, blob: String, size: Int, kind: String?, etag: String? = nil, modified: String? = nil) {
        self.url = url
        self.blob = blob
        self.size = size
        self.kind = kind
        self.etag = etag
        self.modified = modified
    }

    /// Read by hand, not through Codable: `farm fsck` reads every URL record, and Codable's decoding was 8%
    /// of it at 100,000 jobs (bin/benchmark section `roles`). The same members and rules as the record's.
    public init(json: JSONValue) throws(JSONMismatch) {
        self.init(url: try json.decode("url"), blob: try json.decode("blob"), size: try json.decode("size"),
                  kind: try json.decodeIfPresent("kind"), etag: try json.decodeIfPresent("etag"),
                  modified: try json.decodeIfPresent("modified"))
    }

    /// Written by hand too: a worker writes one for every download, and Codable's encoding was 2.5% of a
    /// short job (`farm-benchmark peers`, perf). Members in Codable's order, nil ones left out.
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("blob", blob)
        if let etag { json.member("etag", etag) }
        if let kind { json.member("kind", kind) }
        if let modified { json.member("modified", modified) }
        json.member("size", size)
        json.member("url", url)
        json.endObject()
    }
}

extension Dedup {

    /// The name of `url` in urls/: the SHA-256 of its bytes, as the manifest gave it.
    public static func urlKey(_ url: String) -> String {
        SHA256.hash(data: Array(url.utf8)).withUnsafeBytes(Hex.lowercase)
    }

    /// Whether `name` is a SHA-256 as the spool names one: 64 lowercase hex digits. Two concrete
    /// overloads, not one generic: fsck calls it for every blob and URL record from another module, where
    /// a generic runs unspecialized (10% of `farm fsck` at 100,000 jobs, bin/benchmark section `roles`).
    package static func isDigest(_ name: String) -> Bool { isDigest(utf8: name.utf8) }
    package static func isDigest(_ name: Substring) -> Bool { isDigest(utf8: name.utf8) }

    private static func isDigest<Bytes: Collection<UInt8>>(utf8 bytes: Bytes) -> Bool {
        bytes.count == 64 && bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    func urlRecordPath(key: String) -> String { spool.path(.urls, key) }
    /// The longest text of a symbolic link that every file system farm runs on keeps (PATH_MAX, less room).
    static let longestLinkText = 4000

    /// The record under `key`; nil when there is none, or it does not read, or its blob is no blob's name
    /// (a foreign hand's: it would name a path outside blobs/). A record is the text of a symbolic link
    /// (see `writeURLRecord`), or a file (a record too long for a link's text).
    package func urlRecord(key: String) -> URLRecord? {
        let path = urlRecordPath(key: key)
        let bytes: [UInt8]
        do { bytes = Array(try FileSystem.readLink(path).utf8) } catch where error == .invalidArgument {
            guard let file = try? FileSystem.readFile(path, limit: 1 << 16) else { return nil }
            bytes = file
        } catch {
            return nil
        }
        guard let record = JSON.decode(URLRecord.self, from: bytes), Self.isBlobName(record.blob) else { return nil }
        return record
    }

    /// The stored valid result of `url`: its blob's path and record; nil when there is none (no record,
    /// a record of another URL under the same name, or a blob that was collected since).
    public func storedResult(of url: String) -> (blob: String, record: URLRecord)? {
        guard let record = urlRecord(key: Self.urlKey(url)), record.url == url, holdsBytes(of: record) else { return nil }
        return (blobPath(record.blob), record)
    }

    /// Whether the blob `record` names holds bytes of its size: not collected (gone, or a marker in its
    /// slot), nor cut.
    package func holdsBytes(of record: URLRecord) -> Bool {
        guard let st = try? FileSystem.lstat(blobPath(record.blob)) else { return false }
        return st.type == .regular && Int(st.size) == record.size
    }

    /// Makes `record` the valid result of its URL; the caller holds the URL's lock, so it is the only
    /// writer. The record is the text of a symbolic link: one symlink(2), which appears whole, where a file
    /// would take an open, a write and a close (a worker writes one for every download), and one readlink(2)
    /// to read. A record there already is replaced by rename of a new link: a reader sees the old or the
    /// new one whole. One too long for a link's text (a URL of kilobytes) is a file, written in place when
    /// new: a reader that finds it empty or half-written reads no record, takes the lock and waits for the
    /// writer, so it never acts on a part.
    func writeURLRecord(_ record: URLRecord) throws(Errno) {
        let bytes = JSON.encode(record, capacity: 160 + record.url.utf8.count)
        let path = urlRecordPath(key: Self.urlKey(record.url))
        // JSON.encode ends the line with a newline, which a link's text does not need; no NUL in JSON text.
        let text = String(decoding: bytes.last == 0x0A ? bytes.dropLast() : bytes[...], as: UTF8.self)
        if text.utf8.count < Self.longestLinkText {
            do { try FileSystem.symlink(text, at: path) } catch where error == .fileExists {
                let scratch = spool.scratch.path("url")
                try FileSystem.symlink(text, at: scratch)
                do { try FileSystem.rename(scratch, path) } catch {
                    try? FileSystem.unlink(scratch)
                    throw error
                }
            }
            return
        }
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate], permissions: 0o600)
        } catch where error == .fileExists {
            try spool.scratch.writeWhole(bytes, to: path)
            return
        }
        defer { fd.closeQuietly() }
        do { try fd.write(contentsOf: bytes) } catch {
            try? FileSystem.unlink(path)
            throw error
        }
    }
}
