import FarmJSON

/// Where a list with `--warc DIR` records its requests and responses (SPEC §18): the folder, absolute, and
/// the size its files are rotated at. Kept with the list's request options, as `CrawlSettings` is, in the
/// file every worker reads (and caches) for the list already: a list without it pays nothing to learn so.
public struct WARCSettings: Equatable, Sendable, JSONRecord {
    public var folder: String
    /// nil: FarmWARC's default (1 GiB).
    public var maxSize: Int?

    public init(folder: String, maxSize: Int? = nil) {
        self.folder = folder
        self.maxSize = maxSize
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}
