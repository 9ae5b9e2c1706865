import ArgumentParser
import FarmChangeFeed
import FarmCommandLine
import FarmHooks
import FarmLists
import FarmRegistry
import FarmSpool
import FarmStatus
import FarmSystem
import FoundationEssentials
import Glibc

/// `farm wait [--timeout S]`: blocks until every list is Finished. Exit 0 when nothing failed, 1 when
/// something failed, 3 on time-out; the reason for 1 and 3 is one line on stderr.
struct Wait: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until every list is Finished (exit 0; 1 if something failed; 3 on time-out).",
        discussion: """
            Blocks until every list of the spool is Finished (each resource done or failed, its hook run when \
            its list has one, and a paged \
            list's last page in), then says how many resources are done. The reason for an exit of 1 or 3 \
            is one line on standard error. wait only reads the spool: it starts nothing, and ending it, by \
            --timeout, ^C or SIGTERM, stops nothing. When nothing moves the work on (no farm runs on the \
            spool, or it is paused) wait says so once on standard error, with the command that frees it \
            (farm start, farm resume), and goes on waiting.

            EXAMPLES:
              farm add set.zip && farm start && farm wait && farm stop
                  Download a set, then stop.
              farm wait --timeout 600 || farm failed
                  Give up after ten minutes; or say what failed.
            """ + ExitStatus.section([
                0: "Every list is Finished, and nothing failed.",
                1: """
                    Every list is Finished, but some resources failed (farm failed
                    says why); or there is no spool there, or the time-out is negative.
                    """,
                3: "The time-out came first.",
            ]))

    @OptionGroup var options: SpoolOptions

    @Option(help: "Give up after this many seconds (exit 3).")
    var timeout: Double?

    @OptionGroup var polling: PollOption

    /// How often the summary is read when the watcher's does not change: covers a spool with no
    /// watcher (the summary is then a scan). A new summary is read at once.
    private static let interval = 0.15
    /// How often the summary file is looked at (one stat) for a new summary: every 10 ms, and every
    /// millisecond once `endgame` jobs or fewer are left, so the summary that ends the wait is seen at once.
    /// A stat of the file, not inotify: closing an inotify instance waits for the kernel's SRCU grace
    /// period, 10-20 ms on a busy machine, and `farm wait` would spend that at exit, after the farm had
    /// finished. A stat costs about 2 µs: 100 a second are 0.02% of a core.
    private static let look = 0.01
    private static let endgameLook = 0.001
    private static let endgame = 16
    /// The look where the spool is polled (see `Polling`): there a stat is a round trip to a server,
    /// and the summary itself is a poll's age behind the spool anyway.
    private static let networkLook = 0.05
    /// How often wait looks for what holds the work (`Stall`), and whether a watcher runs (whose summary
    /// it then reads rather than scanning the spool): a lock tried for each process in procs/.
    private static let stallLook = 1.0

    func validate() throws {
        if let timeout, !(timeout >= 0) { throw FarmError("--timeout must be a number of seconds, 0 or more") }
    }

    func run() throws {
        let spool = try options.open(create: false)
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        let polled = Polling.isNeeded(spool, forced: polling.poll)
        var stall: Stall?, nextStallLook = Date()
        var watcherRuns = false, nextWatcherLook = Date()
        while true {
            if Date() >= nextWatcherLook {
                nextWatcherLook = Date().addingTimeInterval(Self.stallLook)
                watcherRuns = spool.registry.processes().contains { $0.role == .watcher }
            }
            var summary = StatusReader.summary(spool, watcherRuns: watcherRuns)
            // The watcher's summary may predate an add or an edit made just before the wait (a polling
            // watcher's is up to a poll behind): an end that misses a published list, or counts one's
            // resources otherwise than its record, is read again from the spool itself.
            if summary.isFinished && !Self.knowsEveryList(summary, spool) { summary = StatusScan.summary(spool) }
            // A list whose `farm get` was stopped by ^C is held (Hold.swift): no worker takes it until that get
            // runs again, so it is not waited for.
            // One stat a list not finished, not a read of queue/: a recursive list's queue holds a batch a page.
            let held = summary.lists.filter { $0.state != .finished && spool.held.contains($0.id) }
            summary.lists.removeAll { list in held.contains { $0.id == list.id } }
            // The hooks of lists that have one (SPEC §15) are part of their end: none left due or running.
            let hooks = summary.isFinished ? spool.hooks.outstanding() : 0
            if summary.isFinished && hooks == 0 {
                guard summary.failed == 0 else {
                    let lists = summary.lists.filter { $0.failed > 0 }.map { "\($0.name): \($0.failed)" }
                    fail("finished, but \(summary.failed) resource(s) failed (\(lists.joined(separator: ", "))); "
                        + "`farm status LIST` shows why", code: 1)
                }
                let done = summary.lists.reduce(0) { $0 + $1.done }
                print("finished: \(summary.lists.count) list(s), \(done) resource(s) done"
                    + (held.isEmpty ? "" : "; \(held.count) list(s) held by a stopped farm get, not waited for"))
                return
            }
            if let deadline, Date() >= deadline {
                if hooks > 0 { fail("timed out after \(formatted(timeout ?? 0)) s: \(hooks) hook(s) still to run", code: 3) }
                let open = summary.lists.filter { $0.state != .finished }
                let detail = open.prefix(3).map { "\($0.name) \($0.done + $0.failed)/\($0.total)" }
                    .joined(separator: ", ") + (open.count > 3 ? ", …" : "")
                fail("timed out after \(formatted(timeout ?? 0)) s: \(open.count) list(s) not finished (\(detail))",
                     code: 3)
            }
            // Said once each time it begins, on stderr: the output stays the one line of the end.
            if Date() >= nextStallLook {
                nextStallLook = Date().addingTimeInterval(Self.stallLook)
                let now = Stall.of(spool)
                if let now, now != stall { Standard.error("farm wait: \(now); waiting\n") }
                stall = now
            }
            let left = summary.lists.reduce(0) { $0 + $1.total - $1.done - $1.failed }
            let look = polled ? Self.networkLook : left <= Self.endgame ? Self.endgameLook : Self.look
            pause(spool, every: look, until: min(Date().addingTimeInterval(Self.interval), deadline ?? .distantFuture))
        }
    }

    /// Whether `summary` has every list the spool has published, each with the total its record has now.
    private static func knowsEveryList(_ summary: StatusDocument, _ spool: Spool) -> Bool {
        let totals = Dictionary(summary.lists.map { ($0.id, $0.total) }, uniquingKeysWith: { a, _ in a })
        return spool.lists.ids().allSatisfy { id in spool.list(id).map { totals[id] == $0.total } ?? true }
    }

    /// Sleeps until `until`, or until the watcher writes a new summary (a new file renamed over the old one).
    private func pause(_ spool: Spool, every look: Double, until: Date) {
        let seen = SummaryFile.version(spool)
        Clock.poll(every: look, for: until.timeIntervalSinceNow) { SummaryFile.version(spool) != seen }
    }

    private func fail(_ reason: String, code: Int32) -> Never {
        Standard.error("farm wait: " + reason + "\n")
        Self.exit(withError: ExitCode(code))
    }

    private func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
