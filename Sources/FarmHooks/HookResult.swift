import FarmJSON

/// How a list's hook (SPEC §15: `farm add --on-done`, `--on-error`) ended for one resource, as
/// `hooks/failed/<list>/<job>` keeps it; a hook that exited 0 is kept as an empty file in hooks/ok/ (see
/// Hooks.swift), read back as `HookResult(exit: 0)`. Shown as the resource's `"hook"` (`{"exit": 3}`).
public struct HookResult: Equatable, Sendable, JSONRecord {
    /// Its exit status; nil when it did not exit by itself (killed, or never started).
    public var exit: Int?
    /// The signal that ended it, when one did.
    public var signal: Int?
    /// Why it failed otherwise: "timed out after 60 s", "cannot run /usr/bin/x: …".
    public var error: String?

    public init(exit: Int? = nil, signal: Int? = nil, error: String? = nil) {
        self.exit = exit
        self.signal = signal
        self.error = error
    }

    public var succeeded: Bool { exit == 0 && error == nil }

    /// What `farm failed --hooks` groups it under.
    public var reason: String {
        if let error { return error }
        if let signal { return "killed by signal \(signal)" }
        return "exit \(exit ?? -1)"
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }
}
