import ArgumentParser
import FarmLists
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `mirror --growth`: issue 64's last goal. farm alone mirrors the whole site (every level: a list that grows
/// to every page and image), and while it runs, every `--sample` seconds, each registered farm process's
/// resident set is read (VmRSS, and its VmHWM at the end) and `farm status` is run and timed: the memory of
/// every role as the list grows, and what the status costs a user then (goal ≤ 0.2 s).
extension MirrorBenchmark {
    struct Sample {
        var at: Double
        /// The list's resources so far.
        var total: Int
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
            + String(format: "%.1f s", sample) + " with a `farm status` timed")
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
        let waited = try Spawned.run(farm, ["wait", "--timeout", "7200", "--spool", spool], log: log, sample: {
            guard Clock.monotonic() >= next else { return }
            let processes = opened.processes()
            var sum: [Role: Int] = [:], largest: [Role: Int] = [:]
            for process in processes {
                let rss = Spawned.memory(of: process.pid).rss
                sum[process.role, default: 0] += rss
                largest[process.role] = max(largest[process.role] ?? 0, rss)
                let peak = Spawned.peakRSS(of: process.pid)
                if peak > 0 { peaks[process.pid] = (process.role, max(peaks[process.pid]?.peak ?? 0, peak)) }
            }
            let total = opened.listIDs().compactMap { opened.list($0)?.total }.reduce(0, +)
            let status = (try? Spawned.run(farm, ["status", "--spool", spool], log: log + ".status"))?.seconds ?? -1
            samples.append(Sample(at: Clock.monotonic() - began, total: total, sum: sum, largest: largest, status: status))
            next = Clock.monotonic() + sample
        })
        let seconds = Clock.monotonic() - began
        for process in opened.processes() {
            let peak = Spawned.peakRSS(of: process.pid)
            if peak > 0 { peaks[process.pid] = (process.role, max(peaks[process.pid]?.peak ?? 0, peak)) }
        }
        let done = opened.inventory().filter { $0.state == .done }.count
        let asked = RequestLog.settled(requests)
        print(String(format: "add→finished %.1f s (add %.2f s, wait %.1f s): %d jobs done of %d, %.0f URLs/s", seconds,
                     add.seconds, waited.seconds, done, expected.count - 1, Double(expected.count) / seconds))
        let twice = asked.answers.values.filter { $0.count > 1 }.count
        print("nginx was asked \(asked.paths.count) URLs: " + (asked.paths == expected ? "the set wget -r -l \(level) -p fetches" : "NOT the expected set (\(expected.subtracting(asked.paths).count) missing, \(asked.paths.subtracting(expected).count) beyond)") + ", \(twice) more than once")
        print("list total   at s     farm status s   VmRSS summed (largest process), MB: "
            + Role.allCases.map(\.rawValue).joined(separator: " / "))
        // About ten rows, evenly spread over the run, and the last.
        let step = max(1, samples.count / 10)
        for (index, row) in samples.enumerated() where index % step == 0 || index == samples.count - 1 {
            print(String(row.total).padded(13) + String(format: "%.1f", row.at).padded(9)
                + String(format: "%.3f", row.status).padded(16) + Role.allCases.map { role in
                    String(format: "%.0f (%.0f)", Double(row.sum[role] ?? 0) / 1e6, Double(row.largest[role] ?? 0) / 1e6)
                }.joined(separator: " / "))
        }
        let statuses = samples.map(\.status).filter { $0 >= 0 }
        if !statuses.isEmpty {
            let large = samples.filter { $0.total >= (samples.last?.total ?? 0) / 2 }.map(\.status).filter { $0 >= 0 }
            print(String(format: "farm status: %d runs, median %.3f s, p90 %.3f s, max %.3f s; with the list at half its "
                + "size or more: median %.3f s, max %.3f s (goal ≤ 0.2 s: %@)", statuses.count, statuses.median,
                statuses.quantile(0.9), statuses.max()!, large.isEmpty ? 0 : large.median, large.max() ?? 0,
                (large.max() ?? statuses.max()!) <= 0.2 ? "met" : "NOT met"))
        }
        let byRole = Dictionary(grouping: peaks.values) { $0.role }
        print("peak RSS (VmHWM) of every process, by role: farm add \(RolesBenchmark.mb(add.peakRSS)); "
            + Role.allCases.compactMap { role in
                byRole[role].map { "\(role.rawValue) \($0.count) × up to \(RolesBenchmark.mb($0.map(\.peak).max()!))" }
            }.joined(separator: "; "))
        if done != expected.count - 1 || asked.paths != expected || twice > 0 { throw ExitCode(1) }
    }
}
