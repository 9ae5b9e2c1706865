/// Why bytes could not become a display image: a reason a user reads in the resource's `error`.
/// Conversion errors are permanent: the same bytes would fail the same way, unless the disk was full
/// (`isNoSpace`), which is no fault of theirs.
public struct ConvertError: Error, CustomStringConvertible, Sendable {
    public let description: String
    /// A write found the disk (or the writer's quota) full: the job waits for room instead of failing.
    public let isNoSpace: Bool

    public init(_ description: String, noSpace: Bool = false) {
        self.description = description
        self.isNoSpace = noSpace
    }
}
