import FarmProcess
import FarmSpool

extension Watcher {
    /// The watcher's life in this process, until SIGTERM; `supervised` when a supervisor started it (see
    /// RoleLife); `poll` to look at the spool on a timer rather than by inotify.
    public static func run(_ spool: Spool, supervised: Bool, poll: Bool = false) throws {
        try RoleLife.run(spool, as: .watcher, supervised: supervised) { life in
            try WatcherRole.run(spool, as: life.registration, poll: poll)
        }
    }
}
