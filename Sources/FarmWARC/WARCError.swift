import SystemPackage

/// Why a WARC file could not be written or read: one line a user can act on, with the system's error when
/// there was one. A failed append leaves no part of its records in a file (see WARCWriter).
public struct WARCError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public let errno: Errno?

    public init(_ message: String, _ errno: Errno? = nil) {
        self.message = message
        self.errno = errno
    }

    public var description: String {
        guard let errno else { return message }
        return "\(message): \(errno)"
    }
}
