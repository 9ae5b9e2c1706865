import FarmSystem

/// Why a status question has no answer: an unknown list, an index out of range, a resource with no
/// image yet, a watcher that cannot watch. `description` is one sentence a user can act on, which
/// is what the CLI prints (ArgumentParser shows it as one line on stderr, exit 1). A value; any thread.
public typealias StatusError = DomainError<StatusErrorCode>

/// What a status question ran into; the subject is the sentence, worded where it is thrown (it names
/// the list, the resource or the path).
public enum StatusErrorCode: ErrorCode {
    /// No list by that name or id in the spool.
    case unknownList
    /// No resource at that index, or its list is gone.
    case noSuchResource
    /// The resource is queued or still being downloaded, unzipped or rendered.
    case notReady
    /// The resource failed: the subject says why.
    case resourceFailed
    /// The resource is done but its display image is not there.
    case noImage
    /// The watcher cannot watch the spool (inotify refused, a directory vanished).
    case watchFailed
    /// A status file could not be written.
    case io
}

extension DomainError where Code == StatusErrorCode {
    /// The sentence, as `description` says it.
    public var message: String { subject }
}
