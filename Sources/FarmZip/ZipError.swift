import SystemPackage

/// The one error type of FarmZip: a code callers can switch on, a sentence a user can act on, and
/// what caused it below (an errno, or a minizip status), if anything did.
///
/// Messages name the entry but not the archive: the caller knows which archive it opened and says so
/// (e.g. "manifest.zip: CRC error in Set 1.json"). A value type; any thread may use it.
public struct ZipError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, as a set that can grow without breaking callers' `switch` statements.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case corrupt, crcMismatch, unsafeEntry, limitExceeded, unsupported, io
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The file is not a zip, is truncated, or its structures or compressed data are damaged.
        public static let corrupt = Code(.corrupt)
        /// An entry's bytes do not match the CRC-32 the archive declares for it.
        public static let crcMismatch = Code(.crcMismatch)
        /// An entry name that could escape the target folder, or a symbolic link: never extracted.
        public static let unsafeEntry = Code(.unsafeEntry)
        /// A `ZipLimits` bound was reached (size, total, ratio, entry count): a zip bomb or an oversized
        /// archive. Nothing beyond the limit was written.
        public static let limitExceeded = Code(.limitExceeded)
        /// Valid zip, but something minizip cannot do (encryption, a compression method other than
        /// store or deflate).
        public static let unsupported = Code(.unsupported)
        /// The file system refused an operation (missing file, permissions, disk full…): see `errno`.
        public static let io = Code(.io)

        public var description: String { value.rawValue }
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
