import FarmSystem

/// Why bytes could not become a display image: a reason a user reads in the resource's `error` (the
/// subject, worded where it is thrown). Conversion errors are permanent: the same bytes would fail the
/// same way, unless the disk was full (`.noSpace`), which is no fault of theirs. A value; any thread.
public typealias ConvertError = DomainError<ConvertErrorCode>

/// What kept bytes from becoming a display image or a thumbnail.
public enum ConvertErrorCode: ErrorCode {
    /// Bytes of a kind farm does not convert: not a JPG, PNG, GIF, WebP or PDF, or a ZIP without one.
    case unsupportedContent
    /// An image or PDF that does not decode: damaged, encrypted, without pages, too large.
    case undecodable
    /// A ZIP that cannot be read or whose entries cannot be unpacked (the zip's reason is the subject).
    case unpackFailed
    /// cairo, libjpeg or the PNG writer failed on a good image (memory, a bad surface).
    case renderFailed
    /// An output could not be written or put in place.
    case writeFailed
    /// A write found the disk (or the writer's quota) full: the job waits for room instead of failing.
    case noSpace
    /// The rendering libraries (cairo, poppler) could not be loaded.
    case librariesMissing
    /// A request the converter refuses whatever the bytes: a thumbnail of no size, pixels of the wrong count.
    case invalidRequest
}

extension DomainError where Code == ConvertErrorCode {
    /// A write that failed: `.noSpace` when the disk was full, else `fallback`.
    static func write(_ message: String, noSpace: Bool, else fallback: Code = .writeFailed) -> Self {
        Self(noSpace ? .noSpace : fallback, message)
    }

    /// A write found the disk (or the writer's quota) full: the job waits for room instead of failing.
    public var isNoSpace: Bool { code == .noSpace }
}
