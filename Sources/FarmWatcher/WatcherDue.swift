/// What the watcher has to do, and when it last did it: all of its state that is not its view of the
/// spool, in one value, so each turn of its loop reads as "do what is due". Owned by the watcher's thread.
struct WatcherDue {
    /// Work an event (or a look) made due, done at the next turn (`Watcher.process`, `writeIfDue`).
    struct Work: OptionSet {
        let rawValue: UInt8
        /// The view changed: a summary is due (throttled).
        static let summary = Work(rawValue: 1 << 0)
        /// A control file shown in the status changed: read desired.json and paused again.
        static let control = Work(rawValue: 1 << 1)
        /// A process came or went: read the registry (and the disk's room) again.
        static let processes = Work(rawValue: 1 << 2)
        /// The kernel dropped events: count everything again from the spool.
        static let rescan = Work(rawValue: 1 << 3)
    }

    /// A fresh feed, fresh watches and a rescan are due (a watched directory was removed or replaced),
    /// not before `at` (monotonic seconds), after `failures` tries that failed (a reset under way).
    struct Rebuild {
        var at = 0.0
        var failures = 0
    }

    var pending: Work = [.summary, .control, .processes]
    var rebuild: Rebuild?
    /// When the summary was last written, and whether that one had every list finished.
    var lastWrite = -Double.infinity
    var wroteFinished = false
    /// When the registry and the disk were last looked at.
    var lastProcessCheck = -Double.infinity
    /// Jobs left at the last look, and whether the end is near (see `Watcher.Options.endgame`).
    var lastLeft = 0
    var endgame = false
    /// The spool was removed under the watcher: the watch ends.
    var spoolGone = false
}
