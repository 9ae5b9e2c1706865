import FarmSystem
import SystemPackage

/// The one error type of FarmZip: a code callers can switch on, a sentence a user can act on (the
/// subject, worded where it is thrown), and what caused it below (a `ZipCause`: an errno, a minizip
/// status), if anything did.
///
/// Messages name the entry but not the archive: the caller knows which archive it opened and says so
/// (e.g. "manifest.zip: CRC error in Set 1.json"). A value type; any thread may use it.
public typealias ZipError = DomainError<ZipErrorCode>

/// What went wrong in an archive.
public enum ZipErrorCode: ErrorCode {
    /// The file is not a zip, is truncated, or its structures or compressed data are damaged.
    case corrupt
    /// An entry's bytes do not match the CRC-32 the archive declares for it.
    case crcMismatch
    /// An entry name that could escape the target folder, or a symbolic link: never extracted.
    case unsafeEntry
    /// A `ZipLimits` bound was reached (size, total, ratio, entry count): a zip bomb or an oversized
    /// archive. Nothing beyond the limit was written.
    case limitExceeded
    /// Valid zip, but something minizip cannot do (encryption, a compression method other than
    /// store or deflate).
    case unsupported
    /// The file system refused an operation (missing file, permissions, disk full…): see `errno`.
    case io

    /// The thrower's sentence, then the system's reason when an errno is under it (a minizip status
    /// alone is for diagnostics, not for the user).
    public func sentence(subject: String, cause: (any Error)?) -> String {
        guard let errno = (cause as? ZipCause)?.errno else { return subject }
        return subject + ": " + errno.description
    }
}

/// What lies under a `ZipError`: the system error behind an `.io` failure, the minizip status (`UNZ_…`,
/// `ZIP_…`, or a zlib error) behind the failure, or both. A value; any thread.
public struct ZipCause: Error, CustomStringConvertible, Sendable {
    public let errno: Errno?
    public let status: Int32?

    public var description: String {
        [errno.map(\.description), status.map { "minizip status \($0)" }].compactMap { $0 }.joined(separator: ", ")
    }
}

extension DomainError where Code == ZipErrorCode {
    /// A failure with the errno under it (and the minizip status that reported it, if one did).
    public init(_ code: Code, _ message: String, errno: Int32?, status: Int32? = nil) {
        self.init(code, message, cause: errno == nil && status == nil
                  ? nil : ZipCause(errno: errno.map(Errno.init(rawValue:)), status: status))
    }

    /// A failure minizip reported with `status`.
    public init(_ code: Code, _ message: String, status: Int32) {
        self.init(code, message, cause: ZipCause(errno: nil, status: status))
    }

    /// The sentence, without the system's reason.
    public var message: String { subject }
    /// The system error behind an `.io` failure.
    public var errno: Int32? { (cause as? ZipCause)?.errno?.rawValue }
    /// The minizip status behind the failure, for diagnostics.
    public var status: Int32? { (cause as? ZipCause)?.status }
}
