import FarmSystem

/// Why a verb of `Control` refused or failed: a code front ends switch on (`farm serve` maps it to an
/// HTTP status), what it is about (`subject`: the number asked for, the list named), and the error
/// underneath (`cause`: a `SpoolError`, an `AddError`, a `StatusError`). `description` makes the one
/// sentence of SPEC §3 when a front end shows it. A value; any thread may use it.
public typealias ControlError = DomainError<ControlErrorCode>

/// What went wrong in a verb of `Control`; the subject is the value asked for, or the list as the user
/// named it.
public enum ControlErrorCode: ErrorCode {
    /// A number of workers outside `Control.workerRange`.
    case workersOutOfRange
    /// A number of transfers a worker outside `Control.transferRange`.
    case transfersOutOfRange
    /// A lease outside `Control.leaseRange` seconds.
    case leaseOutOfRange
    /// A size limit for one download that is not a positive number of bytes.
    case maxSizeOutOfRange
    /// A negative number of transfers per host.
    case perHostOutOfRange
    /// A negative or non-finite number of requests a second per host.
    case rateOutOfRange
    /// A number of bytes to keep free on the spool's disk that is negative.
    case minFreeOutOfRange
    /// A CA certificates file that cannot be read.
    case caFileUnreadable
    /// A bandwidth that is not a number of bytes a second (SPEC §12: the CLI exits 2).
    case badBandwidth
    /// A header, cookie file, user agent or proxy of `add` that is not one (SPEC §12: the CLI exits 2);
    /// the subject is the sentence, which shows no secret.
    case badRequestOption
    /// A delivery folder or name template of `add` that cannot be used (SPEC §12: the CLI exits 2).
    case badDelivery
    /// No list by that name or id in the spool (cause: the lookup's `StatusError` for a typed name).
    case unknownList
    /// A list id that is not one (16 hex digits): it names no list and never could.
    case invalidListID
    /// An edit of a list that does not apply: an unknown id, a position out of range, a duplicate id,
    /// a URL that is not http(s). Nothing was changed (SPEC §8: the CLI exits 2).
    case editRefused
    /// A list added by a farm that kept no resource table, which `export` reads.
    case noResourceTable
    /// `add` refused the manifest: unreadable, unreachable or malformed (cause: `AddError`).
    case manifestRefused
    /// `add` found a list of that name in the spool with other URLs (cause: `AddError`).
    case listConflict
    /// The spool or the system failed the verb: disk, permissions, a farm that did not come up
    /// (cause: `SpoolError`, or the `AddError` that wraps it).
    case spoolFailed

    /// The cause's own sentence when there is one, else one that names the subject.
    public func sentence(subject: String, cause: (any Error)?) -> String {
        if let cause { return "\(cause)" }
        switch self {
        case .workersOutOfRange:
            return "the number of workers goes from \(Control.workerRange.lowerBound) to "
                + "\(Control.workerRange.upperBound) (got \(subject))"
        case .transfersOutOfRange:
            return "the number of transfers a worker goes from \(Control.transferRange.lowerBound) to "
                + "\(Control.transferRange.upperBound) (got \(subject))"
        case .leaseOutOfRange:
            return "the lease goes from \(Int(Control.leaseRange.lowerBound)) to "
                + "\(Int(Control.leaseRange.upperBound)) seconds (got \(subject))"
        case .maxSizeOutOfRange: return "the largest download must be a positive number of bytes (got \(subject))"
        case .perHostOutOfRange: return "--per-host is a number of transfers, 0 for no limit (got \(subject))"
        case .rateOutOfRange: return "--rate-per-host is a number of requests a second, 0 for no limit (got \(subject))"
        case .badBandwidth:
            return "a bandwidth is a number of bytes a second, with K, M or G for powers of 1024 (got \(subject))"
        case .caFileUnreadable: return "cannot read the CA certificates file \(subject); give a readable PEM file"
        case .minFreeOutOfRange:
            return "the bytes to keep free on the disk must be 0 (no limit) or more (got \(subject))"
        case .invalidListID: return "no list \(subject) in the spool (a list's id is 16 hex digits)"
        case .unknownList: return "no list \(subject) in the spool"
        case .noResourceTable:
            return "list \(subject) has lost the table of its resources; farm fsck tells what else it lost"
        case .editRefused, .badRequestOption, .badDelivery: return subject
        case .manifestRefused, .listConflict, .spoolFailed: return "\(self): \(subject)"
        }
    }
}
