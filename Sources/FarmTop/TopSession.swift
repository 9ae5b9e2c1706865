import FarmChangeFeed
import FarmControl
import FarmDesired
import FarmSpool
import FarmStatus
import FarmSystem
import SystemPackage

/// One run of `farm top` in a terminal: waits for a key, a change in the spool or the next second,
/// brings the model up to date, carries out the key's action and draws the frame.
///
/// Costs are bounded however big the spool is. The summary (small: one entry per list) is re-read
/// when inotify says it changed, at most ten times a second. Of the open list only a window is read
/// (`ListWindows`: the rows on screen and a screenful either side, among the matches of the filter
/// when there is one), so its cost follows the screen, not the list; it is read again when scrolling
/// leaves it or the filter changes, and when its summary entry or one of its sidecars changed, no
/// sooner than 0.3 s, or four times its last read, after the previous one. Only the rows on screen
/// are rendered. With nothing happening the loop sleeps in poll(2) for a second (the clock of the
/// ages and rates).
///
/// Owned by the main thread, which it never leaves.
final class TopSession {
    private let spool: Spool
    private let control: Control
    private let terminal: Terminal
    /// Nil when inotify is not available: the one-second tick still keeps the screen current.
    private let watch: SpoolWatch?
    private var state = TopState()
    private var summary: StatusDocument
    /// A window of the open list (see `readList`).
    private var list: ListStatus?
    private let windows = ListWindows()
    private var throughput = Throughput()
    private var message: (TopModel.Message, until: Double)?
    /// Jobs whose sidecars changed, or that finished, since the last sample: for the bytes rate.
    private var changedJobs: Set<String> = []

    private var summaryDue = true
    private var lastSummary = -Double.infinity
    private var listDue = false
    private var nextListBuild = 0.0
    private var sampleDue = false
    private var nextTick = 0.0
    private var drawDue = true
    private var frames = 0
    /// Hears the count of frames drawn after each one (see `LiveView.run`).
    private let afterFrame: ((Int) -> Void)?

    /// `poll`: `--poll` (see `Polling`).
    init(spool: Spool, terminal: Terminal, poll: Bool = false, afterFrame: ((Int) -> Void)? = nil) {
        self.spool = spool
        control = Control(spool: spool)
        self.terminal = terminal
        self.afterFrame = afterFrame
        watch = SpoolWatch(spool: spool, poll: Polling.isNeeded(spool, forced: poll))
        summary = StatusDocument(updated: "", paused: false, workers: Workers(desired: 0, running: 0, transfers: 0),
                                 lists: [])
    }

    /// Runs until `q`, ^C or SIGTERM, then gives the terminal back.
    func run() {
        defer { terminal.close() }
        while !StopSignal.received {
            let now = Clock.monotonic()
            if now >= nextTick { tick(now) }
            refresh(now)
            if drawDue { draw() }
            let terminalThere: Bool
            if let watch {
                terminalThere = watch.wait(timeout: wake(now) - now, input: .standardInput)
                apply(watch.drain())
            } else {
                terminalThere = Readiness.wait([.standardInput], timeout: wake(now) - now)
            }
            // The terminal hung up (and its SIGHUP was ignored): nobody is looking, and poll would spin.
            guard terminalThere else { return }
            for key in terminal.keys() {
                if handle(key) == .quit { return }
            }
        }
    }

    /// Once a second: the summary again (a farm without a watcher sends no events), a rates sample
    /// and a frame for the ages.
    private func tick(_ now: Double) {
        nextTick = now + 1
        summaryDue = true
        sampleDue = true
        drawDue = true
        if let (_, until) = message, now >= until { message = nil }
    }

    /// When the loop must look again even if nothing happens.
    private func wake(_ now: Double) -> Double {
        var wake = nextTick
        if summaryDue { wake = min(wake, lastSummary + 0.1) }
        if listDue && state.listID != nil { wake = min(wake, nextListBuild) }
        return max(now, wake)
    }

    private func apply(_ changes: SpoolChanges) {
        guard !changes.isEmpty else { return }
        if changes.status || changes.control || changes.overflow { summaryDue = true }
        if changes.overflow { listDue = true }
        if changedJobs.count < 100_000 { changedJobs.formUnion(changes.jobs) }
        if let id = state.listID, changes.jobs.contains(where: { $0.hasPrefix(id + ".") }) { listDue = true }
    }

    private func refresh(_ now: Double) {
        if summaryDue && now - lastSummary >= 0.1 {
            summaryDue = false
            lastSummary = now
            let fresh = StatusReader.summary(spool)
            if let id = state.listID, fresh.list(id: id) != summary.list(id: id) { listDue = true }
            if fresh.lists != summary.lists || fresh.workers != summary.workers || fresh.paused != summary.paused
                || StatusText.diskShortage(fresh) != StatusText.diskShortage(summary) {
                drawDue = true
            }
            summary = fresh
            state.follow(summary.lists.map(\.id))
            if sampleDue { sample(now) }
        }
        if let id = state.listID, listDue, now >= nextListBuild {
            readList(id)
            drawDue = true
        }
    }

    /// Reads the window of list `id` around the rows on screen: a screenful either side, so that
    /// scrolling by a line or a page needs no read.
    private func readList(_ id: String) {
        listDue = false
        let page = self.page
        let started = Clock.monotonic()
        list = windows.window(spool, listID: id, offset: max(0, state.resources.top - page),
                              limit: min(ListWindows.maxLimit, 3 * page), query: state.filter,
                              counts: summary.list(id: id))
        let finished = Clock.monotonic()
        nextListBuild = finished + max(0.3, 4 * (finished - started))
        if list == nil {
            state.screen = .lists
            state.filter = ""
            state.editingFilter = false
            say("that list is no longer in the spool", .warn)
        }
    }

    /// Reads the sidecars of the jobs that changed (one small read each) and records a rates sample.
    private func sample(_ now: Double) {
        sampleDue = false
        throughput.read(changedJobs, of: spool, time: now)
        changedJobs.removeAll(keepingCapacity: true)
        throughput.sample(finished: summary.lists.reduce(0) { $0 + $1.done + $1.failed }, time: now)
    }

    private func draw() {
        drawDue = false
        let (rows, columns) = terminal.size
        let page = self.page
        state.settle(listCount: summary.lists.count, resourceCount: ResourcesScreen.count(list), page: page)
        // Scrolled or filtered beyond what the window holds: read the window the screen needs now.
        if let id = state.listID,
           !ResourcesScreen.holds(list, cursor: state.resources, page: page, query: state.filter) {
            readList(id)
            state.settle(listCount: summary.lists.count, resourceCount: ResourcesScreen.count(list), page: page)
        }
        let totals = summary.lists.reduce(0) { $0 + $1.total - $1.done - $1.failed }
        let model = TopModel(spool: spool.root, summary: summary, list: list,
                             filesPerSecond: throughput.filesPerSecond, bytesPerSecond: throughput.bytesPerSecond,
                             eta: throughput.eta(remaining: totals), now: Clock.wall(), message: message?.0)
        terminal.draw(Frame.rows(state: state, model: model, width: columns, height: rows))
        frames += 1
        afterFrame?(frames)
    }

    /// The rows of data on screen: on a recursive list's resources screen, those its hosts leave.
    private var page: Int {
        Frame.page(height: terminal.size.rows, list: state.listID == nil ? nil : list)
    }

    private func handle(_ key: Key) -> TopState.Action? {
        drawDue = true
        guard key != .resize else { return nil }
        let before = state.screen
        let action = state.handle(key, ids: summary.lists.map(\.id), resourceCount: ResourcesScreen.count(list),
                                  page: page,
                                  selectedID: ResourcesScreen.resource(at: state.resources.selected, of: list)?.id)
        if state.screen != before {
            list = nil
            listDue = state.listID != nil
            nextListBuild = 0
        }
        if let action { perform(action) }
        return action
    }

    /// Carries out what a key asked, through the verbs of `Control` that `farm scale`, `pause`,
    /// `resume`, `reload`, `reset` and `item rm` call; what they say shows in the footer.
    private func perform(_ action: TopState.Action) {
        summaryDue = true
        do throws(ControlError) {
            switch action {
            case .quit:
                return
            case .scale(let delta):
                say("\(try control.scale(to: spool.control.desiredWorkers() + delta))")
            case .transfers(let delta):
                let transfers = spool.control.desired().transfers + delta
                try control.scale(transfers: transfers)
                say("\(transfers) transfers a worker")
            case .togglePause:
                let outcome = try control.setPaused(!control.isPaused)
                say("\(outcome)", outcome.paused ? .warn : .normal)
            case .reload(let id):
                let outcome = try control.reload(.id(id))
                listDue = true
                say("\(outcome)")
            case .reset:
                say("resetting: stopping every process...", .warn)
                draw()
                let outcome = try control.reset()
                state = TopState()
                list = nil
                throughput = Throughput()
                say("\(outcome)")
            case .resetCancelled:
                say("reset cancelled: nothing was deleted")
            case .delete(let list, let id):
                let outcome = try control.removeItem(.id(list), id: id)
                listDue = true
                nextListBuild = 0
                say("\(outcome)")
            case .deleteCancelled:
                say("nothing was deleted")
            }
        } catch {
            // At the edge of the range, a key asked for one worker too many or too few: a warning, not a fault.
            say(error.description, [.workersOutOfRange, .transfersOutOfRange].contains(error.code) ? .warn : .bad)
        }
    }

    /// Shows `text` in the footer for four seconds; control characters (from a list's name) become "?".
    private func say(_ text: String, _ style: Style = .normal) {
        message = (TopModel.Message(text: Cells.clean(text), style: style), Clock.monotonic() + 4)
        drawDue = true
    }
}
