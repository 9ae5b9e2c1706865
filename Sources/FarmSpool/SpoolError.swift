import FarmSystem

/// The one error type of the spool: a code callers can switch on, a sentence a user can act on
/// (`subject`, worded where it is thrown), and the `Errno` that caused it, if any.
public typealias SpoolError = DomainError<SpoolErrorCode>

/// What went wrong in the spool.
public enum SpoolErrorCode: ErrorCode {
    /// The directory is not a spool and farm will not make it one.
    case notASpool
    /// The job was reclaimed from this owner: it must stop and never complete it.
    case leaseLost
    /// A file in the spool is damaged or foreign (it has been set aside).
    case corrupt
    /// The file system refused an operation (disk full, permissions…).
    case io
    /// An edit of a list that does not apply (an unknown id, a position out of range, a duplicate id):
    /// nothing was changed.
    case refused

    /// The thrower's sentence, then the system's reason when there is one.
    public func sentence(subject: String, cause: (any Error)?) -> String {
        guard let cause else { return subject }
        return subject + ": \(cause)"
    }
}
