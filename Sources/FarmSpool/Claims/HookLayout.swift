// Where hooks (SPEC §15) live; what they do is FarmHooks'.
extension Spool {
    /// The hooks' folder, `hooks/`.
    public var hooks: String { root + "/hooks" }
    /// Hooks due, `hooks/queue/<job>`, and running, `hooks/active/<job>@<owner>`.
    public var hookQueue: String { hooks + "/queue" }
    public var hookActive: String { hooks + "/active" }

    /// Where the results of list `id`'s hooks that ended as `ok` are kept: hooks/ok/<list> or hooks/failed/<list>.
    public func hookResultDirectory(ofList id: String, ok: Bool) -> String {
        hooks + (ok ? "/ok/" : "/failed/") + id
    }

    /// Hooks' leased queue: due in hooks/queue/, running in hooks/active/, each claim noting its program.
    public var hookClaims: LeasedQueue { LeasedQueue(waiting: hookQueue, active: hookActive, notesProcesses: true) }
}
