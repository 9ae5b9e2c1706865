import FarmSystem

/// Why `farm top` cannot run: one sentence a user can act on (ArgumentParser prints it as one line).
/// A value; any thread.
public typealias TopError = DomainError<TopErrorCode>

/// What kept `farm top` from running.
public enum TopErrorCode: ErrorCode {
    /// ncurses cannot drive the terminal; the subject is `$TERM` (empty when it is not set).
    case unknownTerminal

    public func sentence(subject: String, cause: (any Error)?) -> String {
        switch self {
        case .unknownTerminal:
            subject.isEmpty ? "cannot drive this terminal: TERM is not set"
                : "cannot drive this terminal: ncurses does not know TERM=\(subject)"
        }
    }
}
