/// The error of a domain whose failures are a code, what they are about and the error underneath
/// (swift-nio's `FileSystemError`): `SpoolError`, `AddError`, `ControlError` and `ServeError` are
/// this type with their own `Code`. The code words the sentence `description` shows, so the domains
/// share one shape and keep their own words. A value; any thread may use it.
public struct DomainError<Code: ErrorCode>: Error, CustomStringConvertible, Sendable {
    public let code: Code
    /// What the sentence names (the value asked for, a list's name, a path), or the sentence itself
    /// where the thrower words it (the spool's, the server's): the code says which.
    public let subject: String
    /// The error underneath, kept as it came (an `Errno`, another domain's error), or nil.
    public let cause: (any Error)?

    public init(_ code: Code, _ subject: String, cause: (any Error)? = nil) {
        self.code = code
        self.subject = subject
        self.cause = cause
    }

    /// One sentence that says what is wrong and what to do.
    public var description: String { code.sentence(subject: subject, cause: cause) }
}
