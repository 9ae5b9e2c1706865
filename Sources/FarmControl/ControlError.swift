import FarmSystem

/// Why a verb of `Control` refused or failed: a code front ends switch on (`farm serve` maps it to an
/// HTTP status), what it is about (`subject`: the number asked for, the list named), and the error
/// underneath (`cause`: a `SpoolError`, an `AddError`, a `StatusError`). `description` makes the one
/// sentence of SPEC §3 when a front end shows it. A value; any thread may use it.
public struct ControlError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<ControlError>

    public let code: Code
    /// What the sentence names: the value asked for, or the list as the user named it.
    public let subject: String
    public let cause: (any Error)?

    public init(_ code: Code, _ subject: String, cause: (any Error)? = nil) {
        self.code = code
        self.subject = subject
        self.cause = cause
    }

    /// One sentence that says what is wrong and what to do.
    public var description: String {
        if let cause { return "\(cause)" }
        switch code {
        case .workersOutOfRange:
            return "the number of workers goes from \(Control.workerRange.lowerBound) to "
                + "\(Control.workerRange.upperBound) (got \(subject))"
        case .leaseOutOfRange:
            return "the lease goes from \(Int(Control.leaseRange.lowerBound)) to "
                + "\(Int(Control.leaseRange.upperBound)) seconds (got \(subject))"
        case .maxSizeOutOfRange: return "the largest download must be a positive number of bytes (got \(subject))"
        case .minFreeOutOfRange:
            return "the bytes to keep free on the disk must be 0 (no limit) or more (got \(subject))"
        case .invalidListID: return "no list \(subject) in the spool (a list's id is 16 hex digits)"
        case .unknownList: return "no list \(subject) in the spool"
        default: return "\(code): \(subject)"
        }
    }
}

extension ErrorCode where Domain == ControlError {
    /// A number of workers outside `Control.workerRange`.
    public static var workersOutOfRange: Self { Self("workersOutOfRange") }
    /// A lease outside `Control.leaseRange` seconds.
    public static var leaseOutOfRange: Self { Self("leaseOutOfRange") }
    /// A size limit for one download that is not a positive number of bytes.
    public static var maxSizeOutOfRange: Self { Self("maxSizeOutOfRange") }
    /// A number of bytes to keep free on the spool's disk that is negative.
    public static var minFreeOutOfRange: Self { Self("minFreeOutOfRange") }
    /// No list by that name or id in the spool (cause: the lookup's `StatusError` for a typed name).
    public static var unknownList: Self { Self("unknownList") }
    /// A list id that is not one (16 hex digits): it names no list and never could.
    public static var invalidListID: Self { Self("invalidListID") }
    /// `add` refused the manifest: unreadable, unreachable or malformed (cause: `AddError`).
    public static var manifestRefused: Self { Self("manifestRefused") }
    /// `add` found a list of that name in the spool with other URLs (cause: `AddError`).
    public static var listConflict: Self { Self("listConflict") }
    /// The spool or the system failed the verb: disk, permissions, a farm that did not come up
    /// (cause: `SpoolError`, or the `AddError` that wraps it).
    public static var spoolFailed: Self { Self("spoolFailed") }
}
