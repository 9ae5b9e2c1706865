/// Why `farm top` cannot run: one sentence a user can act on (ArgumentParser prints it as one line).
public struct TopError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) { self.description = description }
}
