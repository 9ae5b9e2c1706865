/// The bounds a `ZipReader` keeps while it reads or extracts, so that a hostile archive (a zip bomb,
/// millions of entries) fails with `ZipError.Code.limitExceeded` instead of filling memory or disk.
///
/// Sizes declared by the archive are checked first, then the bytes really produced are counted as they
/// come out, because declared sizes can lie. A value type; any thread may use it.
public struct ZipLimits: Sendable, Equatable {
    /// The most bytes one entry may expand to.
    public var maxEntryBytes: Int64
    /// The most bytes all the entries read or extracted through one `ZipReader` may expand to together.
    public var maxTotalBytes: Int64
    /// The most an entry may expand relative to its compressed size (uncompressed / compressed).
    public var maxRatio: Int64
    /// Entries smaller than this are not held to `maxRatio`: a small file of blanks compresses very well
    /// and harms nobody.
    public var ratioFloor: Int64
    /// The most entries an archive may list.
    public var maxEntries: Int

    public init(maxEntryBytes: Int64 = 1 << 30, maxTotalBytes: Int64 = 4 << 30, maxRatio: Int64 = 100,
                ratioFloor: Int64 = 1 << 20, maxEntries: Int = 10_000) {
        self.maxEntryBytes = maxEntryBytes
        self.maxTotalBytes = maxTotalBytes
        self.maxRatio = maxRatio
        self.ratioFloor = ratioFloor
        self.maxEntries = maxEntries
    }

    /// 1 GiB per entry, 4 GiB in all, ratio 100 above 1 MiB, 10,000 entries: generous for the images and
    /// PDFs farm downloads, far below what a bomb would produce.
    public static let `default` = ZipLimits()

    /// Only `maxEntryBytes` bounds anything: for a caller that reads one entry into memory and has its own
    /// notion of totals.
    public static func entry(_ maxBytes: Int64) -> ZipLimits {
        ZipLimits(maxEntryBytes: maxBytes, maxTotalBytes: .max, maxRatio: .max, ratioFloor: .max, maxEntries: .max)
    }

    /// The most bytes an entry whose compressed size is `compressed` may expand to under the ratio rule.
    func ratioCap(compressed: UInt64) -> Int64 {
        let (product, overflow) = Int64(clamping: compressed).multipliedReportingOverflow(by: maxRatio)
        return max(overflow ? .max : product, ratioFloor)
    }
}
