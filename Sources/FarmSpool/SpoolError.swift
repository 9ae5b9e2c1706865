import FarmSystem
import SystemPackage

/// The one error type of the spool: a code callers can switch on, a sentence a user can act on,
/// and the errno that caused it, if any.
public struct SpoolError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<SpoolError>

    public let code: Code
    public let message: String
    public let cause: Errno?

    public init(_ code: Code, _ message: String, cause: Errno? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        guard let cause else { return message }
        return message + ": " + cause.description
    }
}

extension ErrorCode where Domain == SpoolError {
    /// The directory is not a spool and farm will not make it one.
    public static var notASpool: Self { Self("notASpool") }
    /// The job was reclaimed from this owner: it must stop and never complete it.
    public static var leaseLost: Self { Self("leaseLost") }
    /// A file in the spool is damaged or foreign (it has been set aside).
    public static var corrupt: Self { Self("corrupt") }
    /// The file system refused an operation (disk full, permissions…).
    public static var io: Self { Self("io") }
}
