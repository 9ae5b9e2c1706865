import FarmChangeFeed
import FarmDesired
import Glibc
import FarmLists
import FarmSpool
import FarmStatus
import FarmSystem

/// The watcher (`farm watch`): follows the spool through its change feed (inotify, or looks at the spool
/// every half second where inotify cannot see other hosts' changes: `Options.poll`) and keeps
/// `status/summary.json` current, so readers get the whole-spool status for the price of one small file
/// read.
///
/// It keeps, per list, the sets of its jobs in active/, done/<list>/ and failed/<list>/, updated in
/// O(1) per event (a rename into a directory adds the job, a rename out removes it), and writes the
/// summary, whose cost grows with the number of lists, not jobs, when something changed (at most
/// every `throttle`) and at least every `heartbeat` (readers trust a summary younger than
/// `SummaryFile.freshness`). Process deaths make no inotify event: the registry is re-read every
/// `processCheck`, and so is the room on the disk (statvfs), whose shortage pauses the workers: a
/// change of that flag is written at once and said in the log.
///
/// It starts from a full scan, taken after its watches are in place; events that the scan already
/// saw are replayed harmlessly because the sets make every update idempotent. The same holds after
/// an inotify queue overflow (a rescan) and when a watched directory is deleted under it, as
/// `farm reset` does (a fresh inotify instance, fresh watches, a rescan). Its death costs nothing
/// but a moment of staleness: the next watcher starts from the spool. A spool removed as a whole
/// (its root gone, looked at with the registry) ends the watch: there is nothing left to watch.
///
/// Owned by one thread.
public final class Watcher {
    public struct Options: Sendable {
        /// The shortest gap between two writes of the summary.
        public var throttle = 0.025
        /// The longest gap between two writes, even when nothing changed.
        public var heartbeat = 1.0
        /// How often the process registry is re-read for workers that died.
        public var processCheck = 0.5
        /// The longest wait for events, so a stop request is seen within it.
        public var wait = 0.1
        /// With this many jobs or fewer left to finish (or no more than finished while it last
        /// slept), events are read as they come, so the summary that shows every list finished
        /// is written at once, not a throttle later.
        public var endgame = 16
        /// Poll the spool instead of inotify (see `Polling`).
        public var poll = false

        public init() {}
    }

    /// What a watched directory is to the watcher.
    enum Directory: Equatable {
        case active, doneRoot, failedRoot, done(String), failed(String), lists, control, procs, queueRoot, status
        /// A claimed pack's folder in active/, by its name there (PROTOCOL.md, "Packs").
        case pack(String)
    }

    /// A claimed pack the watcher follows: its watch, the members still in it, and the one it counts as
    /// active (its first: the others wait as they waited in the queue, see `Spool.claimedNames`).
    private struct WatchedPack {
        var wd: Int32
        var members: Set<JobName>
        var inFlight: JobName?
    }
    private var packs: [String: WatchedPack] = [:]

    private static let entryEvents = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE
    private static let selfEvents = IN_DELETE_SELF | IN_MOVE_SELF
    /// Any of these on a watched directory means it is gone or replaced: start over.
    private static let lostEvents = IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT

    public let spool: Spool
    private let options: Options
    private var source: (any ChangeFeed)?
    private var directories: [Int32: Directory] = [:]
    private var watched: Set<String> = []

    // The view of the spool.
    private(set) var records: [String: ListRecord] = [:]
    private(set) var jobs: [String: ListJobs] = [:]
    /// The last state of each paged list's page log.
    private(set) var pages: [String: PageState] = [:]
    /// The lists whose held batch is in queue/ (Hold.swift in FarmSpool).
    private(set) var held: Set<String> = []
    private(set) var workers = Workers(desired: 0, running: 0, transfers: 0)
    private(set) var paused = false
    /// The readers' asks seen and not answered yet (their nonces: `StatusReader.current`).
    private var asks: Set<String> = []
    /// The desired minimum of free bytes (nil: the default), and whether the disk was short of it at the last look.
    private var minFree: Int?
    private var diskShort = false

    /// What is due, and when things were last done.
    private var due = WatcherDue()
    /// Each list's resources under way as a share of resources (their bytes), read from their sidecars at
    /// most once a heartbeat: a summary written at each change of a busy farm reads none, and a list of
    /// one large file still moves with its bytes.
    private var shares: [String: Double] = [:]
    private var sharesRead = -Double.infinity

    /// Converts the links of finished lists that ask for it (`--convert-links`), on a thread of its own.
    private lazy var converter = LinkConverter(spool: spool)

    /// How many full scans and how many summary writes this watcher made (for tests and logs).
    public private(set) var scans = 0
    public private(set) var writes = 0

    public init(spool: Spool, options: Options = Options()) {
        self.spool = spool
        self.options = options
    }

    /// Watches until `stop()` returns true (checked at least every `options.wait`), or until the spool
    /// is removed (said in the log, or on standard error when the log went with it).
    /// Throws only when it cannot start; later trouble is retried.
    public func run(until stop: () -> Bool) throws(StatusError) {
        try start()
        defer { source = nil }
        while !stop() && !due.spoolGone {
            let now = Clock.monotonic()
            var timeout: Double
            if let rebuild = due.rebuild {
                // Nothing is written nor checked before the rebuild: its next try is all there is to wait for.
                timeout = min(options.wait, rebuild.at - now)
            } else {
                timeout = min(options.wait, due.lastWrite + options.heartbeat - now,
                                  due.lastProcessCheck + options.processCheck - now)
                if due.pending.contains(.summary) { timeout = min(timeout, due.lastWrite + options.throttle - now) }
            }
            timeout = max(0, timeout)
            let events: [InotifyEvent]
            updateEndgame()
            if let source, due.pending.contains(.summary), !due.endgame {
                // A write is pending at a set time: events before it change only what it says, so
                // they are read all at once then, not one wake-up each (a wake-up per completion
                // cost the workers and the watcher more than the events themselves).
                Clock.pause(timeout, every: timeout, unless: stop)
                events = source.next(timeout: 0)
            } else if let source {
                events = source.next(timeout: timeout)
            } else {
                Clock.pause(timeout, every: timeout, unless: stop)  // a rebuild is pending: wait for its next try
                events = []
            }
            process(events)
            writeIfDue()
        }
        if due.spoolGone { spool.logGone("watcher") }
    }

    /// Opens inotify (or the poll), watches the spool, scans it, writes the first summary.
    func start() throws(StatusError) {
        try rebuild()
        process([])  // the control files and the registry, so the first summary is whole
        writeIfDue()
    }

    /// Applies `events`, then whatever they made pending (rescan, rebuild, control, processes).
    func process(_ events: [InotifyEvent]) {
        for event in events {
            if due.rebuild != nil { break }  // everything is read again anyway
            handle(event)
        }
        let now = Clock.monotonic()
        if let pending = due.rebuild {
            guard now >= pending.at else { return }
            do throws(StatusError) {
                try rebuild()
                spool.log("watcher: a watched directory was removed or replaced; watching the spool afresh")
            } catch {
                // The spool is being reset, or is gone (then the watch ends): try again shortly, and say so once.
                if spool.isGone {
                    due.spoolGone = true
                    return
                }
                if pending.failures == 0 { spool.log("watcher: \(error); retrying") }
                due.rebuild = WatcherDue.Rebuild(at: now + 0.25, failures: pending.failures + 1)
                return
            }
        }
        if due.pending.contains(.rescan) {
            rescan()
            spool.log("watcher: the inotify queue overflowed; rescanned the spool")
        }
        if due.pending.contains(.control) {
            due.pending.remove(.control)
            let control = spool.control
            let desired = control.desired(), paused = control.isPaused, limitRate = control.bandwidthLimit()
            // The desired workers are summed over the hosts that run a process: read with the registry.
            due.pending.insert(.processes)
            if paused != self.paused || desired.minFree != minFree || desired.transfers != workers.transfers
                || limitRate != workers.limitRate {
                self.paused = paused
                minFree = desired.minFree
                workers.transfers = desired.transfers
                workers.limitRate = limitRate
                due.pending.insert(.summary)
            }
        }
        if due.pending.contains(.processes) || now - due.lastProcessCheck >= options.processCheck {
            due.pending.remove(.processes)
            due.lastProcessCheck = now
            if spool.isGone {
                due.spoolGone = true
                return
            }
            let counts = spool.control.workerCounts()
            if counts.running != workers.running || counts.desired != workers.desired {
                workers = Workers(desired: counts.desired, running: counts.running, transfers: workers.transfers,
                                  limitRate: workers.limitRate)
                due.pending.insert(.summary)
            }
            lookAtDisk()
        }
    }

    /// Notes a change of the disk's shortage (the free bytes themselves go out with every summary).
    private func lookAtDisk() {
        guard let room = spool.diskRoom(minFree: minFree), room.isShort != diskShort else { return }
        diskShort = room.isShort
        due.pending.insert(.summary)
        spool.log(room.isShort
            ? "the spool's disk has \(room.free) bytes free, under the minimum of \(room.minFree): "
                + "no new transfer starts until space is freed"
            : "the spool's disk has \(room.free) bytes free again (minimum \(room.minFree)): transfers go on")
    }

    /// One event: O(1), except a new list directory, which gets a watch and a count.
    private func handle(_ event: InotifyEvent) {
        if event.has(IN_Q_OVERFLOW) {
            due.pending.insert(.rescan)
            return
        }
        guard let directory = directories[event.wd] else { return }
        if case .pack(let name) = directory {
            // A pack's folder goes (emptied, or sent back whole to the queue) as a matter of course.
            if event.has(Self.lostEvents) { forgetPack(name) } else { packChanged(name, event) }
            return
        }
        if event.has(Self.lostEvents) {
            if due.rebuild == nil { due.rebuild = WatcherDue.Rebuild() }
            return
        }
        let added = event.has(IN_CREATE | IN_MOVED_TO), removed = event.has(IN_DELETE | IN_MOVED_FROM)
        switch directory {
        case .active:
            if event.has(IN_ISDIR) {
                if added { watchPack(event.name) } else if removed { forgetPack(event.name) }
                return
            }
            guard let job = ActiveName(event.name)?.job else { return }
            update(job, added: added, removed: removed, \.active)
        case .pack:
            return
        case .doneRoot, .failedRoot:
            guard event.has(IN_ISDIR), ListID.isValid(event.name) else { return }
            let done = directory == .doneRoot
            if added {
                watchList(event.name, done: done)
                recount(event.name, done: done)
            } else if removed {
                if done { jobs[event.name, default: ListJobs()].done = JobSet() } else {
                    jobs[event.name, default: ListJobs()].failed = JobSet()
                }
                due.pending.insert(.summary)
            }
        case .done(let list):
            guard let job = JobName(event.name), job.list == list else { return }
            update(job, added: added, removed: removed, \.done)
            // Finished, so no longer claimed, whatever the view of its pack was (a pack's member leaves no event
            // in active/ itself).
            if added { update(job, added: false, removed: true, \.active) }
        case .failed(let list):
            guard let job = JobName(event.name), job.list == list else { return }
            update(job, added: added, removed: removed, \.failed)
            if added { update(job, added: false, removed: true, \.active) }
        case .lists:
            // An edit or a page changes a list's order (its total), a page its log, and the start origin's
            // robots.txt a recursive list's Crawl-delay: read again.
            guard let id = Lists.listID(ofShownFileName: event.name) else { return }
            let record = spool.shownList(id)
            if record != records[id] {
                records[id] = record
                due.pending.insert(.summary)
            }
            let state = record?.paged == nil ? nil : Lists(spool).pageState(ofList: id)
            if state != pages[id] {
                pages[id] = state
                due.pending.insert(.summary)
            }
        case .control:
            if ControlFile.isShownInStatus(event.name) { due.pending.insert(.control) }
        case .procs:
            due.pending.insert(.processes)
        case .status:
            // A reader asks for the summary as of its ask: every event before this one is in the view by the
            // time it is written. The registry is read again with it; a poll, which sees the spool's folders
            // one after the other, not in the order they changed, rescans.
            guard added, let nonce = StatusFiles.ask(ofName: event.name) else { return }
            asks.insert(nonce)
            due.pending.insert(.summary)
            due.pending.insert(.processes)
            if options.poll { due.pending.insert(.rescan) }
        case .queueRoot:
            guard event.has(IN_ISDIR), HeldLists.isHeld(batch: event.name) else { return }
            let list = String(event.name.dropFirst(HeldLists.batchPrefix.count))
            if added ? held.insert(list).inserted : held.remove(list) != nil { due.pending.insert(.summary) }
        }
    }

    private func update(_ job: JobName, added: Bool, removed: Bool, _ set: WritableKeyPath<ListJobs, JobSet>) {
        var jobs = self.jobs[job.list, default: ListJobs()]
        if added, jobs[keyPath: set].insert(job.index) { due.pending.insert(.summary) }
        if removed, jobs[keyPath: set].remove(job.index) { due.pending.insert(.summary) }
        self.jobs[job.list] = jobs
    }

    /// Follows the claimed pack `name` of active/: watched first, then read (what changes between the two
    /// arrives as events).
    private func watchPack(_ name: String) {
        guard packs[name] == nil, let at = name.firstIndex(of: "@"), PackName.isValid(String(name[..<at])),
              let source else { return }
        let path = spool.path(.active, name)
        guard let wd = try? source.watch(path, events: UInt32(bitPattern: Self.entryEvents | Self.selfEvents)) else { return }
        directories[wd] = .pack(name)
        packs[name] = WatchedPack(wd: wd, members: Set(FileSystem.names(path).compactMap(JobName.init)), inFlight: nil)
        countInFlight(name)
    }

    /// A member entered or left the pack `name`.
    private func packChanged(_ name: String, _ event: InotifyEvent) {
        guard var pack = packs[name], let job = JobName(event.name) else { return }
        if event.has(IN_CREATE | IN_MOVED_TO) { pack.members.insert(job) }
        if event.has(IN_DELETE | IN_MOVED_FROM) {
            pack.members.remove(job)
            update(job, added: false, removed: true, \.active)
        }
        packs[name] = pack
        countInFlight(name)
    }

    /// Counts the first member of the pack `name` as active, and no other.
    private func countInFlight(_ name: String) {
        guard var pack = packs[name] else { return }
        let first = pack.members.min { $0.index < $1.index }
        guard first != pack.inFlight else { return }
        if let old = pack.inFlight { update(old, added: false, removed: true, \.active) }
        if let first { update(first, added: true, removed: false, \.active) }
        pack.inFlight = first
        packs[name] = pack
    }

    /// The pack `name` left active/ (emptied and removed, or sent back to the queue).
    private func forgetPack(_ name: String) {
        guard let pack = packs.removeValue(forKey: name) else { return }
        for job in pack.members { update(job, added: false, removed: true, \.active) }
        directories[pack.wd] = nil
        source?.removeWatch(pack.wd)
    }

    /// A fresh inotify instance (or poll), every watch, a full scan.
    private func rebuild() throws(StatusError) {
        source = nil
        directories = [:]
        watched = []
        packs = [:]
        guard let source = changeFeed(poll: options.poll) else { throw StatusError(.watchFailed, "no inotify instance is left") }
        self.source = source
        let roots: [(String, Directory, Int32)] = [
            (spool.active, .active, Self.entryEvents), (spool.done, .doneRoot, Self.entryEvents),
            (spool.failed, .failedRoot, Self.entryEvents), (spool.lists.folder, .lists, Self.entryEvents | IN_CLOSE_WRITE),
            (spool.control.folder, .control, Self.entryEvents | IN_CLOSE_WRITE), (spool.procs, .procs, Self.entryEvents),
            // Only its batch folders come and go there (a few names): a held list's appears and goes.
            (spool.queue, .queueRoot, Self.entryEvents),
            // Readers' asks are created there; the summaries and answers are renamed in (not reported).
            (spool.status.folder, .status, IN_CREATE),
        ]
        for (path, directory, events) in roots {
            let wd: Int32
            do { wd = try source.watch(path, events: UInt32(bitPattern: events | Self.selfEvents)) } catch {
                throw StatusError(.watchFailed, "cannot watch \(path): \(error)")
            }
            directories[wd] = directory
            watched.insert(path)
        }
        due.rebuild = nil
        removeOldAsks()
        rescan()
    }

    /// Asks and answers that a reader killed while it waited left in status/.
    private func removeOldAsks() {
        let now = Clock.wall()
        for name in FileSystem.names(spool.status.folder)
        where name.hasPrefix(StatusFiles.askPrefix) || name.hasPrefix(StatusFiles.answerPrefix) {
            let path = spool.path(.status, name)
            if let st = try? FileSystem.lstat(path), now - st.modificationTime > ScratchFiles.age {
                try? FileSystem.unlink(path)
            }
        }
    }

    /// Recounts everything from the spool, after making sure every list directory is watched (some
    /// may have appeared while events were lost). Watches first, then reads: what changes between
    /// the two arrives as events, which the sets absorb.
    func rescan() {
        due.pending.remove(.rescan)
        let doneLists = FileSystem.names(spool.done).filter(ListID.isValid)
        let failedLists = FileSystem.names(spool.failed).filter(ListID.isValid)
        for list in doneLists { watchList(list, done: true) }
        for list in failedLists { watchList(list, done: false) }
        var jobs: [String: ListJobs] = [:]
        for (list, active) in StatusScan.activeJobs(spool) { jobs[list, default: ListJobs()].active = active }
        for list in doneLists {
            jobs[list, default: ListJobs()].done = StatusScan.jobSet(spool, list, .done)
        }
        for list in failedLists {
            jobs[list, default: ListJobs()].failed = StatusScan.jobSet(spool, list, .failed)
        }
        self.jobs = jobs
        // The packs are followed afresh, each counted by its first member as the scan counted it: what a pack
        // was known to hold before may be stale (events lost).
        for pack in packs.values {
            directories[pack.wd] = nil
            source?.removeWatch(pack.wd)
        }
        packs = [:]
        for name in FileSystem.names(spool.active) where name.hasPrefix("k") { watchPack(name) }
        records = StatusScan.listRecords(spool)
        pages = StatusScan.pageStates(spool, records)
        held = spool.held.lists()
        due.pending.insert(.control)
        due.pending.insert(.processes)
        due.pending.insert(.summary)
        scans += 1
    }

    /// Watches done/<list> (or failed/<list>) if it is not yet watched. A directory that vanished
    /// meanwhile is not an error: its removal arrives as an event.
    private func watchList(_ list: String, done: Bool) {
        let path = spool.finishedDirectory(list, done ? .done : .failed)
        guard let source, !watched.contains(path),
              let wd = try? source.watch(path, events: UInt32(bitPattern: Self.entryEvents | Self.selfEvents))
        else { return }
        directories[wd] = done ? .done(list) : .failed(list)
        watched.insert(path)
    }

    /// Counts a list directory that just appeared (after its watch was added).
    private func recount(_ list: String, done: Bool) {
        if done {
            jobs[list, default: ListJobs()].done = StatusScan.jobSet(spool, list, .done)
        } else {
            jobs[list, default: ListJobs()].failed = StatusScan.jobSet(spool, list, .failed)
        }
        due.pending.insert(.summary)
    }

    /// The summary as the watcher sees the spool now.
    func document() -> StatusDocument {
        let now = Clock.monotonic()
        if now - sharesRead >= options.heartbeat {
            sharesRead = now
            shares = StatusScan.shares(ofActive: jobs, spool)
        }
        return StatusScan.document(records: records, jobs: jobs, pages: pages, held: held, shares: shares,
                                   workers: workers, paused: paused, disk: spool.diskRoom(minFree: minFree),
                                   updated: Timestamp.iso8601(Clock.wall()))
    }

    /// Near the end once few jobs are left, or no more than finished since the last look (then
    /// the next throttle's sleep could see the end); no longer once new jobs arrive.
    private func updateEndgame() {
        let left = outstanding()
        if left > due.lastLeft { due.endgame = false }
        if left <= max(options.endgame, due.lastLeft - left) { due.endgame = true }
        due.lastLeft = left
    }

    /// Jobs of the known lists neither done nor failed yet, and one for each paged list whose pages are
    /// not all in (it is not finished either).
    func outstanding() -> Int {
        records.reduce(0) { sum, entry in
            let jobs = jobs[entry.key]
            let pagesLeft = entry.value.paged != nil && pages[entry.key]?.done != true ? 1 : 0
            return sum + pagesLeft + max(0, entry.value.total - (jobs?.done.count ?? 0) - (jobs?.failed.count ?? 0))
        }
    }

    /// Writes the summary when something changed and the throttle allows, or when the heartbeat is
    /// due. Not while the spool is being rebuilt: a summary of a half-deleted spool would mislead.
    /// The change that finishes every list is written at once: `farm wait` and the views wait for
    /// it, and on a short run a throttle (12 ms on average) is a good part of the time.
    func writeIfDue() {
        let now = Clock.monotonic()
        let finished = !records.isEmpty && outstanding() == 0
        // A reader waits for its ask's answer: no throttle for it.
        guard due.rebuild == nil,
              (due.pending.contains(.summary)
                && (now - due.lastWrite >= options.throttle || (finished && !due.wroteFinished) || !asks.isEmpty))
                || now - due.lastWrite >= options.heartbeat else { return }
        due.lastWrite = now
        due.pending.remove(.summary)
        due.wroteFinished = finished
        let document = self.document()
        converter.look(at: document, records: records)
        // A failed write (status/ gone in a reset) is retried at the next change or heartbeat.
        if (try? SummaryFile.write(document, to: spool)) != nil { writes += 1 }
        // Unanswered (status/ gone), a reader scans after its wait.
        for nonce in asks { try? StatusReader.answer(nonce, with: document, in: spool) }
        asks = []
    }
}
