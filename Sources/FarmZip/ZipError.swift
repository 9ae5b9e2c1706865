import SystemPackage

/// The one error type of FarmZip: a code callers can switch on, a sentence a user can act on, and
/// what caused it below (an errno, or a minizip status), if anything did.
///
/// Messages name the entry but not the archive: the caller knows which archive it opened and says so
/// (e.g. "manifest.zip: CRC error in Set 1.json"). A type of its own rather than a `DomainError`: it
/// keeps minizip's status beside the errno. A value type; any thread may use it.
public struct ZipError: Error, CustomStringConvertible, Sendable {
    /// What went wrong in an archive.
    public enum Code: Sendable {
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
    }

    public let code: Code
    public let message: String
    /// The system error behind an `.io` failure.
    public let errno: Int32?
    /// The minizip status (`UNZ_…`, `ZIP_…`, or a zlib error) behind the failure, for diagnostics.
    public let status: Int32?

    public init(_ code: Code, _ message: String, errno: Int32? = nil, status: Int32? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
        self.status = status
    }

    public var description: String {
        guard let errno else { return message }
        return message + ": " + Errno(rawValue: errno).description
    }
}
