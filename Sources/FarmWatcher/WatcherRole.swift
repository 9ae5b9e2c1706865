import FarmChangeFeed
import FarmRegistry
import FarmSpool
import FarmStatus
import FarmSystem
import FoundationEssentials

/// The watcher process's work (`farm watch`): each host's supervisor starts one; one of them serves the
/// whole spool (it holds `control/watcher.lock`), following it through inotify, or by polling where inotify
/// cannot see other hosts (`Polling`), while the others wait as its standby and one takes over when it dies.
public enum WatcherRole {
    /// Seconds between two tries of the serving lock by a standby.
    static let standbyTry = 0.25

    /// Serves the spool once this process may (as `registration`), until a stop signal or the spool's end.
    public static func run(_ spool: Spool, as registration: Registration, poll: Bool = false) throws {
        guard let serving = try waitToServe(spool, as: registration) else { return }
        defer { serving.release() }
        FinishedSync.start(spool)
        var options = Watcher.Options()
        if let reason = Polling.reason(spool, forced: poll) {
            options.poll = true
            spool.log("watcher: polling the spool every \(Polling.interval) s (\(reason))")
        }
        try Watcher(spool: spool, options: options).run { StopSignal.received }
    }

    /// Waits as standby while another watcher (another host's) serves the spool, trying its lock every
    /// `standbyTry` seconds; nil when told to stop meanwhile, or the spool went away.
    private static func waitToServe(_ spool: Spool, as registration: Registration) throws -> ServingLock? {
        var waited = false
        var lock: ServingLock?
        // A try of the lock, not the change feed: the serving watcher may be on another host, whose
        // death no inotify here reports; only its lock's release (flock over the network file system) does.
        try Clock.poll(every: standbyTry, unless: { StopSignal.received || spool.isGone }) {
            lock = try spool.registry.takeWatcherLock(for: registration)
            if lock != nil {
                if waited { spool.log("watcher: the serving watcher is gone; serving the spool") }
                return true
            }
            if !waited { spool.log("watcher: another watcher serves the spool; standing by") }
            waited = true
            return false
        }
        return lock
    }
}
