import FarmSpool
import FarmSystem
import Glibc
import SystemPackage

/// What changed in the spool since the last look, as inotify told it.
public struct SpoolChanges: Equatable, Sendable {
    /// The watcher replaced status/summary.json.
    public var status = false
    /// control/desired.json, a host's desired workers or control/paused changed.
    public var control = false
    /// Jobs (raw names) whose sidecar in progress/ was written or removed, or that just finished
    /// (arrived in done/<list>/ or failed/<list>/, their outcome record with them).
    public var jobs: Set<String> = []
    /// The kernel dropped events, or a watched directory went away: assume everything changed.
    public var overflow = false

    public init() {}

    public var isEmpty: Bool { !status && !control && jobs.isEmpty && !overflow }
}

/// The change feed of one live view (`farm top`, `farm serve`) on status/, progress/, control/
/// and every done/<list>/ and failed/<list>/: the reason to look again, so no view polls the spool
/// in a loop.
///
/// The directories can vanish under it (`farm reset` deletes and recreates them): a lost watch is
/// added again at the next `drain` once the directory is back. Where inotify cannot see other hosts'
/// changes (`Polling`), the same events come from looks at the spool (see `ChangeFeed`), and `wait`
/// returns at the next look. Owned by one thread.
public final class SpoolWatch {
    private enum Directory: Hashable {
        case status, progress, control, doneRoot, failedRoot
        /// done/<list> or failed/<list>: where jobs land with their outcome records.
        case finished(String)
    }

    private static let events = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF)
        | UInt32(IN_MOVE_SELF)

    /// inotify, or the looks that stand for it.
    private let feed: any ChangeFeed
    /// Events `wait` read and `drain` has not handed on yet.
    private var pending: [InotifyEvent] = []
    private let spool: Spool
    private var watches: [Int32: Directory] = [:]
    /// The directories watched for good (the lists' come and go), and how many of them are.
    private static let fixed: [Directory] = [.status, .control, .progress, .doneRoot, .failedRoot]
    private var fixedWatches = 0

    /// With `poll`, by looks at the spool (see `Polling.isNeeded`). Nil when inotify cannot be had (out
    /// of instances): the caller falls back to a timer.
    public init?(spool: Spool, poll: Bool = false) {
        guard let feed = changeFeed(poll: poll) else { return nil }
        self.feed = feed
        self.spool = spool
        addMissingWatches()
    }

    /// Waits up to `timeout` seconds for a change, or for `input` (standard input) to be readable.
    /// A signal (a resize, ^C) ends the wait early. False when `input` is gone (the terminal hung up).
    @discardableResult
    public func wait(timeout: Double, input: FileDescriptor? = nil) -> Bool {
        guard pending.isEmpty else { return true }
        var hungUp = false
        pending = feed.next(timeout: timeout, input: input, hungUp: &hungUp)
        return !hungUp
    }

    /// Every change queued so far (polling: seen at a look that was due), without waiting.
    public func drain() -> SpoolChanges {
        var changes = SpoolChanges()
        let events = pending + feed.next(timeout: 0)
        pending = []
        for event in events { apply(event, to: &changes) }
        if fixedWatches < Self.fixed.count { addMissingWatches() }
        return changes
    }

    private func apply(_ event: InotifyEvent, to changes: inout SpoolChanges) {
        if event.has(IN_Q_OVERFLOW) {
            changes.overflow = true
            return
        }
        guard let directory = watches[event.wd] else { return }
        if event.has(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) {
            // Gone (a reset): forget the watch; it is added again once the directory is back.
            watches[event.wd] = nil
            removeWatch(event.wd)
            if case .finished = directory { return }
            fixedWatches -= 1
            changes.overflow = true
            return
        }
        let name = event.name
        switch directory {
        case .status:
            if name == StatusFiles.summaryName { changes.status = true }
        case .control:
            if ControlFile.isShownInStatus(name) { changes.control = true }
        case .progress:
            if let job = SidecarFiles.job(ofName: name) { changes.jobs.insert(job.raw) }
        case .doneRoot, .failedRoot:
            if event.has(IN_CREATE | IN_MOVED_TO), ListID.isValid(name) {
                watchFinished(name, done: directory == .doneRoot, new: true)
            }
        case .finished:
            if event.has(IN_MOVED_TO), JobName(name) != nil { changes.jobs.insert(name) }
        }
    }

    private func addMissingWatches() {
        for directory in Self.fixed where !watches.values.contains(directory) {
            let path: String
            switch directory {
            case .status: path = spool.status.folder
            case .progress: path = spool.progress
            case .control: path = spool.control.folder
            case .doneRoot: path = spool.done
            case .failedRoot: path = spool.failed
            case .finished: continue
            }
            guard let wd = try? watch(path, events: Self.events | UInt32(IN_ONLYDIR)) else { continue }
            watches[wd] = directory
            fixedWatches += 1
            // The lists already there, watched after their root so that none is missed.
            if directory == .doneRoot || directory == .failedRoot {
                for list in FileSystem.names(path) where ListID.isValid(list) {
                    watchFinished(list, done: directory == .doneRoot)
                }
            }
        }
    }

    /// Watches done/<list> (or failed/<list>); adding a watch twice returns the same one. A `new` one
    /// just appeared: polling then reports the jobs it holds already, as inotify saw them arrive.
    private func watchFinished(_ list: String, done: Bool, new: Bool = false) {
        let events = UInt32(IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        if let wd = try? watch(spool.finishedDirectory(list, done ? .done : .failed), events: events, new: new) {
            watches[wd] = .finished(list)
        }
    }

    private func watch(_ path: String, events: UInt32, new: Bool = false) throws(Errno) -> Int32 {
        try feed.watch(path, events: events, new: new)
    }

    private func removeWatch(_ wd: Int32) { feed.removeWatch(wd) }
}
