import FarmSystem
import FarmTransfer

/// Why `farm add` refused a manifest; nothing was enqueued when this is thrown. It keeps what went wrong
/// (`code`), what it is about (`subject`: the manifest's path or URL, a list's name, or a path in the
/// spool) and the error underneath (`cause`); `description` makes the one sentence of SPEC §3 from them
/// when a front end shows it. A value; any thread may use it.
public typealias AddError = DomainError<AddErrorCode>

/// What stopped `farm add`, and what the error underneath is for each.
public enum AddErrorCode: ErrorCode {
    /// control/add.lock, which makes adds take turns, cannot be taken (cause: `Errno`).
    case lock
    /// What dead adds left in the spool cannot be finished first (cause: `SpoolError`).
    case recovery
    /// The source is an empty string (`farm add ''`): no path, URL or `-` (no cause).
    case noSource
    /// A local manifest cannot be read (cause: `Errno`).
    case unreadable
    /// The spool's tmp/ takes no file to fetch the manifest into (cause: `Errno`).
    case scratch
    /// A manifest URL cannot be fetched (cause: `TransferError`).
    case unfetchable
    /// The manifest is malformed, of no known shape, or holds no list (cause: `ManifestError`).
    case malformed
    /// A list of the manifest is in the spool already, with other URLs (no cause).
    case conflict
    /// The spool refused the jobs (cause: `SpoolError`).
    case enqueue

    /// One sentence that names the file and says what to do.
    public func sentence(subject: String, cause: (any Error)?) -> String {
        let reason = cause.map { "\($0)" } ?? "unknown error"
        switch self {
        case .lock: return "cannot lock \(subject): \(reason)"
        case .recovery: return "cannot recover the spool: \(reason)"
        case .noSource: return "the manifest is an empty argument: give a path, an http(s) URL, or - for standard input"
        case .unreadable: return "\(subject): cannot read the manifest (\(reason))"
        case .scratch: return "cannot write to \(subject): \(reason)"
        case .unfetchable:
            if let transfer = cause as? TransferError, transfer.httpStatus != nil {
                return "cannot fetch the manifest \(subject): the server answered \(transfer.message)"
            }
            return "cannot fetch the manifest \(subject): \(reason); check the network or give a local path"
        case .conflict: return "\(subject) is already in the spool with other URLs; run `farm reset` first, or rename the list"
        case .enqueue: return "cannot enqueue the manifest: \(reason); nothing was added"
        case .malformed: return reason  // the manifest reader's sentence names the file and the place
        }
    }
}
