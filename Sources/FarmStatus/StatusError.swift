/// Why a status question has no answer: an unknown list, an index out of range, a resource with no
/// image yet, a watcher that cannot watch. `description` is one sentence a user can act on, which
/// is what the CLI prints (ArgumentParser shows it as one line on stderr, exit 1).
public struct StatusError: Error, CustomStringConvertible, Sendable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
