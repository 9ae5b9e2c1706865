/// The code of an error of one domain (`ErrorCode<SpoolError>`, `ErrorCode<ZipError>`…): what went wrong,
/// as a name callers compare and switch on. It is a struct, not an enum, so a domain's set of codes can
/// grow without breaking callers' `switch` statements (they keep a `default`). Each error type declares
/// `typealias Code = ErrorCode<Self>` and its codes as static members of an extension constrained to
/// itself; only farm's own modules make codes. A value; any thread may use it.
public struct ErrorCode<Domain>: Hashable, Sendable, CustomStringConvertible {
    /// The code's name, as messages and logs show it.
    public let description: String

    package init(_ name: String) {
        description = name
    }
}
