import FarmJSON

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
    /// What the screens show above the list's grid (SPEC §9), when the list gives them.
    public var title: String?
    public var cover: String?

    public init(name: String, total: Int, digest: String, source: String, added: String, shape: String? = nil,
                title: String? = nil, cover: String? = nil) {
        self.name = name
        self.total = total
        self.digest = digest
        self.source = source
        self.added = added
        self.shape = shape
        self.title = title
        self.cover = cover
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}



/// Every member is required but `shape`, `title` and `cover`, which are left out when absent.
extension ListRecord: JSONRecord {}

extension Spool {
    /// The published list with this id, or nil when there is none (or it does not parse). Its `total`
    /// is the count now: an edited list's order file has the last word (the record is written once).
    public func list(_ id: String) -> ListRecord? {
        guard var record = listRecord(id).flatMap({ JSON.decode(ListRecord.self, from: $0) }) else { return nil }
        if let count = editedCount(ofList: id) { record.total = count }
        return record
    }
}
