import ArgumentParser
import FarmLists
import FarmRegistry
import FarmSpool
import FarmStatus
import FarmSystem
import Foundation
import Glibc

/// `mirror --growth`: issue 64's last goal. farm alone mirrors the whole site (every level: a list that grows
/// to every page and image), and while it runs, every `--sample` seconds, each registered farm process's
/// resident set is read (VmRSS, and its VmHWM at the end) and `farm status` is run and timed: the memory of
/// every role as the list grows, and what the status costs a user then (goal ≤ 0.2 s). A row is printed
/// every 15 s as it runs; past `--limit` seconds the farm is stopped and what it reached is reported.
extension MirrorBenchmark {
    struct Sample {
        var at: Double
        /// The list's resources so far, and those done.
        var total: Int
        var done: Int
        /// VmRSS summed over each role's processes, and the largest process of each role.
        var sum: [Role: Int]
        var largest: [Role: Int]
        /// `farm status`, command to exit.
        var status: Double
    }

    func growth(site: MirrorSite, start: String, base: String, requests: String) throws {
        let farm = self.farm ?? Spawned.sibling("farm")
        let spool = base + "/spool"
        let log = base + "/farm.log"
        let expected = site.fetched(level: level)
        print("farm --recursive --level \(level), \(parallel) workers, conversions off: \(expected.count) URLs "
            + "(\(site.pages.filter { $0.count <= level }.count) pages); the list's processes sampled every "
            + String(format: "%.1f s", sample) + " with a `farm status` timed; stopped after "
            + String(format: "%.0f s", limit) + " if not finished")
        print("at s     list total   done      URLs/s since   farm status s   VmRSS summed (largest process), MB: "
            + Role.allCases.map(\.rawValue).joined(separator: " / "))
        truncate(requests, 0)
        let began = Clock.monotonic()
        let add = try Spawned.run(farm, ["add", start, "--recursive", "--level", String(level), "--spool", spool],
                                  log: log)
        defer { _ = try? Spawned.run(farm, ["stop", "--spool", spool], log: log, check: false) }
        try Spawned.run(farm, ["start", "--workers", String(parallel), "--no-convert", "--spool", spool], log: log)
        let opened = try Spool(root: spool, create: false)
        var samples: [Sample] = []
        var peaks: [Int32: (role: Role, peak: Int)] = [:]
        var next = Clock.monotonic()
        var shown: Sample?
        func look() {
            let processes = opened.registry.processes()
            var sum: [Role: Int] = [:], largest: [Role: Int] = [:]
            for process in processes {
                let rss = Spawned.memory(of: process.pid).rss
                sum[process.role, default: 0] += rss
                largest[process.role] = max(largest[process.role] ?? 0, rss)
                let peak = Spawned.peakRSS(of: process.pid)
                if peak > 0 { peaks[process.pid] = (process.role, max(peaks[process.pid]?.peak ?? 0, peak)) }
            }
            let lists = StatusReader.summary(opened, watcherRuns: true).lists
            let status = (try? Spawned.run(farm, ["status", "--spool", spool], log: log + ".status"))?.seconds ?? -1
            let row = Sample(at: Clock.monotonic() - began, total: lists.map(\.total).reduce(0, +),
                             done: lists.map(\.done).reduce(0, +), sum: sum, largest: largest, status: status)
            samples.append(row)
            // A row every `rowEvery` seconds as it runs: a run stopped by its limit has shown its course.
            if shown.map({ row.at - $0.at >= Self.rowEvery }) ?? true {
                print(Self.row(row, since: shown))
                fflush(nil)
                shown = row
            }
        }
        let waited = try Spawned.run(farm, ["wait", "--timeout", String(limit), "--spool", spool], log: log,
                                     check: false, sample: {
            guard Clock.monotonic() >= next else { return }
            look()
            next = Clock.monotonic() + sample
        })
        let seconds = Clock.monotonic() - began
        look()
        if let last = samples.last, last.at != shown?.at { print(Self.row(last, since: shown)) }
        let finished = waited.status == 0
        let done = opened.inventory().filter { $0.state == .done }.count
        let asked = RequestLog.settled(requests)
        print(String(format: "add→%@ %.1f s (add %.2f s): %d jobs done of %d, %.0f URLs/s",
                     finished ? "finished" : "stopped at the limit", seconds, add.seconds, done, expected.count - 1,
                     Double(done + 1) / seconds))
        let twice = asked.answers.values.filter { $0.count > 1 }.count
        let beyond = asked.paths.subtracting(expected).count
        print("nginx was asked \(asked.paths.count) URLs, \(beyond) beyond the set wget -r -l \(level) -p fetches, "
            + "\(twice) more than once" + (finished ? (asked.paths == expected ? "; the whole set" : "; NOT the whole set") : ""))
        let statuses = samples.map(\.status).filter { $0 >= 0 }
        if !statuses.isEmpty {
            let large = samples.filter { $0.total >= (samples.last?.total ?? 0) / 2 }.map(\.status).filter { $0 >= 0 }
            print(String(format: "farm status: %d runs, median %.3f s, p90 %.3f s, max %.3f s, %d over 0.2 s; with the list "
                + "at half its size or more: median %.3f s, max %.3f s (goal ≤ 0.2 s: %@)", statuses.count, statuses.median,
                statuses.quantile(0.9), statuses.max()!, statuses.filter { $0 > 0.2 }.count, large.isEmpty ? 0 : large.median,
                large.max() ?? 0, (large.max() ?? statuses.max()!) <= 0.2 ? "met" : "NOT met"))
        }
        let byRole = Dictionary(grouping: peaks.values) { $0.role }
        print("peak RSS (VmHWM) of every process, by role: farm add \(RolesBenchmark.mb(add.peakRSS)); "
            + Role.allCases.compactMap { role in
                byRole[role].map { "\(role.rawValue) \($0.count) × up to \(RolesBenchmark.mb($0.map(\.peak).max()!))" }
            }.joined(separator: "; "))
        if !finished || done != expected.count - 1 || asked.paths != expected || twice > 0 { throw ExitCode(1) }
    }

    /// Seconds between two rows printed while the list grows.
    static let rowEvery = 15.0

    private static func row(_ row: Sample, since: Sample?) -> String {
        let rate = since.map { Double(row.done - $0.done) / max(0.001, row.at - $0.at) } ?? Double(row.done) / row.at
        return String(format: "%.0f", row.at).padded(9) + String(row.total).padded(13) + String(row.done).padded(10)
            + String(format: "%.0f", rate).padded(15) + String(format: "%.3f", row.status).padded(16)
            + Role.allCases.map { role in
                String(format: "%.0f (%.0f)", Double(row.sum[role] ?? 0) / 1e6, Double(row.largest[role] ?? 0) / 1e6)
            }.joined(separator: " / ")
    }
}
