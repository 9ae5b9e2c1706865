import FarmSpool
import Glibc

/// What changed in the spool since the last look, as inotify told it.
public struct SpoolChanges: Equatable, Sendable {
    /// The watcher replaced status/summary.json.
    public var status = false
    /// control/desired.json or control/paused changed.
    public var control = false
    /// Jobs (raw names) whose sidecar in progress/ was written or removed, or that just finished
    /// (arrived in done/<list>/ or failed/<list>/, their outcome record with them).
    public var jobs: Set<String> = []
    /// The kernel dropped events, or a watched directory went away: assume everything changed.
    public var overflow = false

    public init() {}

    public var isEmpty: Bool { !status && !control && jobs.isEmpty && !overflow }
}

/// An inotify instance of one live view (`farm top`, `farm serve`) on status/, progress/, control/
/// and every done/<list>/ and failed/<list>/: the reason to look again, so no view polls the spool
/// in a loop. Raw inotify_init1 rather than libinotifytools (the watcher's), which allows one
/// instance per process (a demo's `top` shares its process with other code) and would have to be
/// drained through select(2).
///
/// The directories can vanish under it (`farm reset` deletes and recreates them): a lost watch is
/// added again at the next `drain` once the directory is back. Owned by one thread.
public final class SpoolWatch {
    private enum Directory: Hashable {
        case status, progress, control, doneRoot, failedRoot
        /// done/<list> or failed/<list>: where jobs land with their outcome records.
        case finished(String)
    }

    private static let events = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF)
        | UInt32(IN_MOVE_SELF)

    public let descriptor: Int32
    private let spool: Spool
    private var watches: [Int32: Directory] = [:]
    /// The directories watched for good (the lists' come and go), and how many of them are.
    private static let fixed: [Directory] = [.status, .control, .progress, .doneRoot, .failedRoot]
    private var fixedWatches = 0
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Nil when inotify cannot be had (out of instances): the caller falls back to a timer.
    public init?(spool: Spool) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        self.spool = spool
        addMissingWatches()
    }

    deinit { close(descriptor) }

    /// Waits up to `timeout` seconds for a change, or for `input` (standard input) to be readable.
    /// A signal (a resize, ^C) ends the wait early. False when `input` is gone (the terminal hung up).
    @discardableResult
    public func wait(timeout: Double, input: Int32? = nil) -> Bool {
        Readiness.wait([descriptor] + (input.map { [$0] } ?? []), timeout: timeout)
    }

    /// Every change queued so far, without waiting.
    public func drain() -> SpoolChanges {
        var changes = SpoolChanges()
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.withUnsafeBytes { parse(UnsafeRawBufferPointer(rebasing: $0[0..<count]), into: &changes) }
        }
        if fixedWatches < Self.fixed.count { addMissingWatches() }
        return changes
    }

    private func parse(_ bytes: UnsafeRawBufferPointer, into changes: inout SpoolChanges) {
        let header = MemoryLayout<inotify_event>.size
        var offset = 0
        while offset + header <= bytes.count {
            let wd = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameBytes = bytes[(offset + header)..<min(bytes.count, offset + header + length)]
            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            offset += header + length
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                changes.overflow = true
                continue
            }
            guard let directory = watches[wd] else { continue }
            if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                // Gone (a reset): forget the watch; it is added again once the directory is back.
                watches[wd] = nil
                inotify_rm_watch(descriptor, wd)
                if case .finished = directory { continue }
                fixedWatches -= 1
                changes.overflow = true
                continue
            }
            switch directory {
            case .status:
                if name == "summary.json" { changes.status = true }
            case .control:
                if name == "desired.json" || name == "paused" { changes.control = true }
            case .progress:
                if name.hasSuffix(".json"), JobName(String(name.dropLast(5))) != nil {
                    changes.jobs.insert(String(name.dropLast(5)))
                }
            case .doneRoot, .failedRoot:
                if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, ListID.isValid(name) {
                    watchFinished(name, done: directory == .doneRoot)
                }
            case .finished:
                if mask & UInt32(IN_MOVED_TO) != 0, JobName(name) != nil { changes.jobs.insert(name) }
            }
        }
    }

    private func addMissingWatches() {
        for directory in Self.fixed where !watches.values.contains(directory) {
            let path: String
            switch directory {
            case .status: path = spool.status
            case .progress: path = spool.progress
            case .control: path = spool.control
            case .doneRoot: path = spool.done
            case .failedRoot: path = spool.failed
            case .finished: continue
            }
            let wd = inotify_add_watch(descriptor, path, Self.events | UInt32(IN_ONLYDIR))
            guard wd >= 0 else { continue }
            watches[wd] = directory
            fixedWatches += 1
            // The lists already there, watched after their root so that none is missed.
            if directory == .doneRoot || directory == .failedRoot {
                for list in SpoolFiles.names(path) ?? [] where ListID.isValid(list) {
                    watchFinished(list, done: directory == .doneRoot)
                }
            }
        }
    }

    /// Watches done/<list> (or failed/<list>); adding a watch twice returns the same one.
    private func watchFinished(_ list: String, done: Bool) {
        let wd = inotify_add_watch(descriptor, (done ? spool.done : spool.failed) + "/" + list,
                                   UInt32(IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR))
        if wd >= 0 { watches[wd] = .finished(list) }
    }
}

/// poll(2) on a few descriptors for reading. Stateless.
public enum Readiness {
    /// Waits until one of `descriptors` is readable, a signal arrives or `timeout` seconds pass.
    /// False when one of them hung up or is invalid: waiting on it again would return at once,
    /// forever.
    @discardableResult
    public static func wait(_ descriptors: [Int32], timeout: Double) -> Bool {
        var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds = Int32(min(60_000, max(0, (timeout * 1000).rounded(.up))))
        // Readiness, an interruption (EINTR) or the time-out: the caller looks at everything anyway.
        guard poll(&fds, nfds_t(fds.count), milliseconds) > 0 else { return true }
        return !fds.contains { $0.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 }
    }
}
