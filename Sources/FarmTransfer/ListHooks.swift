import FarmJSON

/// The programs a list runs after each of its resources ends (SPEC §15: `farm add --on-done PROGRAM
/// [--on-done-arg ARG]… [--on-error PROGRAM [--on-error-arg ARG]…] [--hook-timeout S]`). Each is an
/// absolute path and its arguments, run with no shell, the resource in its environment. Not a request's,
/// but kept with the list's request options: in the file every worker reads for the list, of mode 0600
/// (an argument may hold a token), never shown.
public struct ListHooks: Equatable, Sendable, JSONRecord {
    /// Run after a resource is done; after one that failed too, unless `onError` is given.
    public var onDone: [String]?
    /// Run after a resource failed for good.
    public var onError: [String]?
    /// Seconds a hook may run before it is killed (and counts as failed); nil: `defaultTimeout`.
    public var timeout: Double?

    public static let defaultTimeout = 60.0

    public init(onDone: [String]? = nil, onError: [String]? = nil, timeout: Double? = nil) {
        self.onDone = onDone
        self.onError = onError
        self.timeout = timeout
    }

    /// The program and arguments run after a resource that ended so; nil: none.
    public func command(failed: Bool) -> [String]? {
        failed ? onError ?? onDone : onDone
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}
