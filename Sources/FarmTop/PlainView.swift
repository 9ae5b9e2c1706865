import FarmChangeFeed
import FarmSpool
import FarmStatus
import FarmSystem
import Glibc

/// `farm top` without a terminal (piped, redirected, in a script): one summary line each time the
/// counts, the workers or the paused flag change, each followed by a line per host of every recursive
/// list (issue 64: "  LIST HOST: N found, N fetched, N active, N queued"), until every list is Finished
/// (or ^C, SIGTERM). The hosts are counted again only when their list's summary entry changed.
/// Woken by the same inotify watch as the screens, so it costs nothing while nothing moves.
/// Owned by the main thread.
struct PlainView {
    let spool: Spool
    /// `--poll`: look at the spool instead of trusting inotify (see `Polling`).
    var poll = false

    func run() {
        let watch = SpoolWatch(spool: spool, poll: Polling.isNeeded(spool, forced: poll))
        var throughput = Throughput()
        var last: PlainLine.Counts?
        var nextSample = 0.0
        var jobs: Set<String> = []
        let windows = ListWindows()
        while !StopSignal.received {
            let now = Clock.monotonic()
            let summary = StatusReader.summary(spool)
            if now >= nextSample {
                nextSample = now + 1
                throughput.read(jobs, of: spool, time: now)
                jobs.removeAll()
                throughput.sample(finished: summary.lists.reduce(0) { $0 + $1.done + $1.failed }, time: now)
            }
            var counts = PlainLine.Counts(summary)
            counts.hosts = summary.lists.compactMap { list in
                list.request?.recursive == nil ? nil
                    : windows.hosts(spool, listID: list.id, counts: list).map { (list.name, $0) }
            }.flatMap { name, hosts in hosts.map { PlainLine.HostLine(list: name, counts: $0) } }
            if counts != last {
                last = counts
                print(PlainLine.text(summary, throughput: throughput, time: Clock.wall()))
                for host in counts.hosts { print(PlainLine.text(host)) }
                fflush(nil)  // every stream: stdout itself is not reachable from Swift 6
            }
            if summary.isFinished && !summary.lists.isEmpty { return }
            if let watch {
                guard watch.wait(timeout: nextSample - Clock.monotonic()) else { return }
                let changes = watch.drain()
                if jobs.count < 100_000 { jobs.formUnion(changes.jobs) }
                // Events come in bursts (a summary every 25 ms at most): a look every tenth of a second will do.
                Clock.pause(0.1, every: 0.1)
            } else {
                Clock.pause(0.5, every: 0.5)  // ended by the process: its SIGINT's default action
            }
        }
    }
}

/// The line `farm top` prints without a terminal. Stateless.
enum PlainLine {
    /// What must change for a new line to be printed (not the rates, which change all the time).
    struct Counts: Equatable {
        var lists: [ListStatus]
        var workers: Workers
        var paused: Bool
        var pausedBy: PausedBy?
        /// Every host of every recursive list, list by list.
        var hosts: [HostLine] = []

        init(_ summary: StatusDocument) {
            lists = summary.lists
            workers = summary.workers
            paused = summary.paused
            pausedBy = summary.pausedBy
        }
    }

    /// "10:00:01 3/13 done, 0 failed, 2 active, 8 queued; 1/4 lists finished; 4 at once: 4 workers × 1; 1.5 files/s, …".
    static func text(_ summary: StatusDocument, throughput: Throughput, time: Double) -> String {
        let lists = summary.lists
        let total = lists.reduce(0) { $0 + $1.total }, done = lists.reduce(0) { $0 + $1.done }
        let failed = summary.failed, active = lists.reduce(0) { $0 + $1.active }
        let queued = lists.reduce(0) { $0 + $1.queued }
        let finished = lists.filter { $0.state == .finished }.count
        var line = clock(time) + " \(done)/\(total) done, \(failed) failed, \(active) active, \(queued) queued; "
            + "\(finished)/\(lists.count) lists finished; " + summary.workers.concurrency
        if summary.paused { line += StatusText.diskShortage(summary).map { "; paused: " + $0 } ?? "; paused" }
        line += "; " + Format.rate(throughput.filesPerSecond, unit: "files/s") + ", "
            + Format.byteRate(throughput.bytesPerSecond)
        if !summary.paused && done + failed < total {
            line += ", ETA " + Format.eta(throughput.eta(remaining: total - done - failed))
        }
        return line
    }

    /// One host of a recursive list.
    struct HostLine: Equatable {
        var list: String
        var counts: HostCounts
    }

    /// "  site 127.0.0.1:8080: 12 found, 5 fetched, 2 active, 5 queued", under the summary line.
    static func text(_ host: HostLine) -> String {
        "  " + Cells.clean(host.list) + " " + StatusText.host(host.counts)
    }

    /// Local time of day, "HH:MM:SS".
    static func clock(_ time: Double) -> String {
        var seconds = time_t(time.rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return two(parts.tm_hour) + ":" + two(parts.tm_min) + ":" + two(parts.tm_sec)
    }
}
