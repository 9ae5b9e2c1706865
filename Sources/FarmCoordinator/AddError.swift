import FarmSystem
import FarmTransfer

/// Why `farm add` refused a manifest; nothing was enqueued when this is thrown. It keeps what went wrong
/// (`code`), what it is about (`subject`) and the error underneath (`cause`); `description` makes the
/// one sentence of SPEC §3 from them when a front end shows it. A value; any thread may use it.
public struct AddError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<AddError>

    public let code: Code
    /// What the sentence names: the manifest's path or URL, a list's name, or a path in the spool.
    public let subject: String
    /// The error underneath: an `Errno`, `SpoolError`, `TransferError` or `ManifestError` (see `Code`).
    public let cause: (any Error)?

    public init(_ code: Code, _ subject: String, cause: (any Error)? = nil) {
        self.code = code
        self.subject = subject
        self.cause = cause
    }

    /// One sentence that names the file and says what to do.
    public var description: String {
        let cause = cause.map { "\($0)" } ?? "unknown error"
        switch code {
        case .lock: return "cannot lock \(subject): \(cause)"
        case .recovery: return "cannot recover the spool: \(cause)"
        case .unreadable: return "\(subject): cannot read the manifest (\(cause))"
        case .scratch: return "cannot write to \(subject): \(cause)"
        case .unfetchable:
            if let transfer = self.cause as? TransferError, transfer.httpStatus != nil {
                return "cannot fetch the manifest \(subject): the server answered \(transfer.message)"
            }
            return "cannot fetch the manifest \(subject): \(cause); check the network or give a local path"
        case .conflict: return "\(subject) is already in the spool with other URLs; run `farm reset` first, or rename the list"
        case .enqueue: return "cannot enqueue the manifest: \(cause); nothing was added"
        default: return cause  // .malformed: the manifest reader's sentence names the file and the place
        }
    }
}

extension ErrorCode where Domain == AddError {
    /// control/add.lock, which makes adds take turns, cannot be taken (cause: `Errno`).
    public static var lock: Self { Self("lock") }
    /// What dead adds left in the spool cannot be finished first (cause: `SpoolError`).
    public static var recovery: Self { Self("recovery") }
    /// A local manifest cannot be read (cause: `Errno`).
    public static var unreadable: Self { Self("unreadable") }
    /// The spool's tmp/ takes no file to fetch the manifest into (cause: `Errno`).
    public static var scratch: Self { Self("scratch") }
    /// A manifest URL cannot be fetched (cause: `TransferError`).
    public static var unfetchable: Self { Self("unfetchable") }
    /// The manifest is malformed, of no known shape, or holds no list (cause: `ManifestError`).
    public static var malformed: Self { Self("malformed") }
    /// A list of the manifest is in the spool already, with other URLs (no cause).
    public static var conflict: Self { Self("conflict") }
    /// The spool refused the jobs (cause: `SpoolError`).
    public static var enqueue: Self { Self("enqueue") }
}
