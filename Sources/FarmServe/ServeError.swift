/// Why a request (or the server) failed: an HTTP status and one sentence a user can act on. Answered
/// as `{"error": "…"}` with that status; the CLI prints the message of a server that cannot start.
public struct ServeError: Error, CustomStringConvertible, Sendable {
    public let status: Int
    public let message: String

    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }
}
