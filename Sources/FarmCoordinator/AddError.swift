/// Why `farm add` refused a manifest: one sentence that names the file and says what to do.
/// Nothing was enqueued when this is thrown.
public struct AddError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
