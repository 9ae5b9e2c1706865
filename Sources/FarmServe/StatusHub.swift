import FarmChangeFeed
import FarmJSON
import FarmSpool
import FarmStatus
import FarmSystem
import Dispatch
import FoundationEssentials

/// Wakes every open event stream from one inotify watch (FarmChangeFeed's `SpoolWatch`) on its own thread: when the
/// watcher replaces status/summary.json (within 25 ms of any change, and at least once a second) or a
/// control file changes, the hub reads the summary once (`latest`) and wakes every subscriber; sidecar
/// changes wake them too, for the streams that show one list. With no watcher running nothing replaces
/// the summary, so a second without events also makes the hub read it (`StatusReader` scans then);
/// without inotify at all (no instance left), that one-second read is all there is.
///
/// Thread-safe: subscribers come and go from any task; the watch belongs to the hub's thread.
final class StatusHub: Sendable {
    private struct State {
        var next = 0
        var subscribers: [Int: AsyncStream<Void>.Continuation] = [:]
        var latest: [UInt8]?
        var document: StatusDocument?
        var stopped = false
    }

    private let spool: Spool
    /// `--poll`: look at the spool instead of trusting inotify (see `Polling`).
    private let poll: Bool
    private let state = Locked(State())
    private let finished = DispatchSemaphore(value: 0)

    init(spool: Spool, poll: Bool = false) {
        self.spool = spool
        self.poll = poll
    }

    /// Starts the hub's thread.
    func start() {
        Threads.detach { [self] in
            // Made here: the watch belongs to this thread alone.
            run(SpoolWatch(spool: spool, poll: Polling.isNeeded(spool, forced: poll)))
            finished.signal()
        }
    }

    /// Ends every stream and the thread (within the thread's one-second wait).
    func stop() {
        let continuations = state.withLock { state in
            state.stopped = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
        _ = finished.wait(timeout: .now() + 5)
    }

    /// The summary as last read (one line of JSON, no newline).
    var latest: [UInt8] {
        if let latest = state.withLock({ $0.latest }) { return latest }
        return Self.encode(StatusReader.summary(spool))
    }

    /// The summary as last read, for the counts of a list's windows; nil before the first read.
    var summary: StatusDocument? { state.withLock { $0.document } }

    /// Wake-ups, the first at once. A subscriber still busy with the previous one gets one more, not
    /// one per event, so a slow client skips states instead of falling behind.
    func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (id, stopped) = state.withLock { state in
            state.next += 1
            if !state.stopped { state.subscribers[state.next] = continuation }
            return (state.next, state.stopped)
        }
        guard !stopped else {
            continuation.finish()
            return stream
        }
        continuation.yield()
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    private func run(_ watch: SpoolWatch?) {
        // Read at once, not a second later: the first windows take their counts from it.
        var document = StatusReader.summary(spool)
        var last = Self.encode(document)
        state.withLock { [last, document] state in
            state.latest = last
            state.document = document
        }
        while !state.withLock({ $0.stopped }) {
            var changes = SpoolChanges()
            if let watch {
                watch.wait(timeout: 1)
                changes = watch.drain()
            } else {
                // No inotify instance left: a look a second stands for the feed; a stop ends the wait.
                Clock.pause(1, unless: { state.withLock { $0.stopped } })
            }
            let jobs = !changes.jobs.isEmpty || changes.overflow
            var changed = jobs
            if changes.status || changes.control || changes.overflow || !jobs {
                document = StatusReader.summary(spool)
                let summary = Self.encode(document)
                changed = changed || summary != last
                last = summary
            }
            guard changed else { continue }
            let subscribers = state.withLock { state in
                state.latest = last
                state.document = document
                return Array(state.subscribers.values)
            }
            for subscriber in subscribers { subscriber.yield() }
        }
    }

    /// One line of JSON without its newline, as an event's `data:` needs.
    static func encode(_ value: some JSONWritable) -> [UInt8] {
        Array(JSON.encode(value).dropLast())
    }
}
