/// Where hooks (SPEC §15) live, `hooks/`: due in hooks/queue/, running in hooks/active/, ended in
/// hooks/ok/<list>/ or hooks/failed/<list>/, and their leased queue. What they do is FarmHooks', which adds
/// the hooks' moves to this part. A part of a `Spool`, reached as `spool.hooks`. A value; any thread.
public struct HookFiles: Sendable {
    /// The spool, for FarmHooks' moves (its log, its quarantine).
    package let spool: Spool
    /// `hooks/`.
    public var folder: String { spool.root + "/hooks" }

    init(_ spool: Spool) { self.spool = spool }

    /// Hooks due, `hooks/queue/<job>`, and running, `hooks/active/<job>@<owner>`.
    public var queue: String { folder + "/queue" }
    public var active: String { folder + "/active" }

    /// Where the results of list `id`'s hooks that ended as `ok` are kept: hooks/ok/<list> or hooks/failed/<list>.
    public func resultDirectory(ofList id: String, ok: Bool) -> String {
        folder + (ok ? "/ok/" : "/failed/") + id
    }

    /// Hooks' leased queue: due in hooks/queue/, running in hooks/active/, each claim noting its program.
    public var claims: LeasedQueue { LeasedQueue(waiting: queue, active: active, notesProcesses: true) }
}

extension Spool {
    /// The hooks' files and their leased queue.
    public var hooks: HookFiles { HookFiles(self) }
}
