import FarmControl

/// Why a request (or the server) failed: an HTTP status, one sentence a user can act on, and the error
/// underneath when there is one (a refusal of `Control`, the socket's). Answered as `{"error": "…"}`
/// with that status; the CLI prints the message of a server that cannot start. A value.
public struct ServeError: Error, CustomStringConvertible, Sendable {
    public let status: Int
    public let message: String
    public let cause: (any Error)?

    public init(_ status: Int, _ message: String, cause: (any Error)? = nil) {
        self.status = status
        self.message = message
        self.cause = cause
    }

    /// A refusal of a verb, with the status its code calls for: the request was wrong (400), named
    /// no list (404), clashes with what the spool holds (409), or the farm failed it (500).
    init(_ refusal: ControlError) {
        let status: Int
        switch refusal.code {
        case .unknownList, .invalidListID: status = 404
        case .listConflict: status = 409
        case .spoolFailed: status = 500
        default: status = 400
        }
        self.init(status, refusal.description, cause: refusal)
    }

    public var description: String { message }
}
