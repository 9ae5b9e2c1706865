import FarmSpool
import FarmSystem
import SystemPackage

/// Starts farm processes: the supervisor (detached, in a session of its own) and its workers and
/// watcher. Children run the same executable as their parent, read nothing from the terminal, and
/// write whatever they print to the spool's log.
///
/// `farm start` starts the supervisor, and the supervisor its workers and watcher, as copies of
/// themselves (`copy`): fork without exec. An exec'd farm spends about 8 ms of CPU before its first
/// claim (mapping and relocating the binary and its ~40 libraries, the Swift runtime's first type
/// lookups, argument parsing); a copy starts with all of that done, and `farm start` returns that
/// much sooner. It pays for its second path: against the same farm starting every child by exec,
/// the small set downloads 1.4× faster on 130 instead of 200 MB (RESULTS.md, "Start-up").
public enum Spawn {
    /// The descriptor a supervisor finds its already-locked supervisor lock on (see `handingDown`).
    public static let lockDescriptor: Int32 = 3

    /// Starts `farm <arguments>` and returns its pid. With `newSession` it outlives this process and
    /// any terminal. `handingDown` (a locked `supervisor.lock`) becomes the child's descriptor 3: the
    /// lock then belongs to the child as well, so no other process can slip in a second supervisor
    /// between our unlock and its lock. (The lock is never already at 3: stdio plus the lock were opened
    /// first, and `SupervisorLock.take` places it above 3.)
    public static func farm(_ arguments: [String], spool: Spool, newSession: Bool = false,
                            handingDown lock: FileDescriptor? = nil) throws(SpoolError) -> Int32 {
        do {
            return try Processes.spawn(Processes.executable, ["farm"] + arguments, output: spool.logFile,
                                       newSession: newSession, handingDown: lock, at: lockDescriptor)
        } catch {
            throw SpoolError(.io, "cannot start `farm \(arguments.first ?? "")`", cause: error)
        }
    }

    /// Runs `role` in a copy of this process and returns the copy's pid; the copy exits with what
    /// `role` returns and shows as `farm <title>` (as many words as fit; `arguments` when nil) in
    /// `ps`. `newSession` and `handingDown` are those of `farm`. A process with more than one
    /// thread cannot be copied safely (another thread may hold a lock the copy would wait on
    /// forever): it starts `farm <arguments>` instead, which must run the same role.
    public static func copy(_ arguments: [String], title: [String]? = nil, spool: Spool, newSession: Bool = false,
                            handingDown lock: FileDescriptor? = nil,
                            running role: () -> Int32) throws(SpoolError) -> Int32 {
        let copy: Processes.Copy
        do { copy = try Processes.copy(output: spool.logFile, handingDown: lock, newSession: newSession) } catch {
            if error == .deadlock {
                return try farm(arguments, spool: spool, newSession: newSession, handingDown: lock)
            }
            throw SpoolError(.io, "cannot start `farm \(arguments.first ?? "")`", cause: error)
        }
        if case .parent(let child) = copy { return child }
        Processes.setTitle(["farm"] + (title ?? arguments))
        Processes.exit(role())
    }
}
