/// Why bytes could not become a display image: a reason a user reads in the resource's `error`.
/// Conversion errors are permanent: the same bytes would fail the same way.
public struct ConvertError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
