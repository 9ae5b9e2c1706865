/// Why an origin could not start: the message says what to fix. Thrown by `Origin.start()`.
public struct OriginError: Error, Sendable, CustomStringConvertible {
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
