import FarmControl
import FarmSystem
import HTTPTypes

/// Why a request (or the server) failed: an HTTP status for its code, one sentence a user can act on
/// (`subject`, worded where it is thrown), and the error underneath when there is one (a refusal of
/// `Control`, the socket's). Answered as `{"error": "…"}` with that status; the CLI prints the sentence
/// of a server that cannot start. A value.
public typealias ServeError = DomainError<HTTPResponse.Status>

/// farm serve's failures are coded by the status they are answered with; the thrower's sentence is said as
/// it is (the cause, when kept, is for the caller, not the user).
extension HTTPResponse.Status: ErrorCode {}

extension DomainError where Code == HTTPResponse.Status {
    /// A refusal of a verb, with the status its code calls for: the request was wrong (400), named
    /// no list (404), clashes with what the spool holds (409), or the farm failed it (500).
    init(_ refusal: ControlError) {
        let status: HTTPResponse.Status
        switch refusal.code {
        case .unknownList, .invalidListID: status = .notFound
        case .listConflict: status = .conflict
        case .spoolFailed: status = .internalServerError
        default: status = .badRequest
        }
        self.init(status, refusal.description, cause: refusal)
    }
}
