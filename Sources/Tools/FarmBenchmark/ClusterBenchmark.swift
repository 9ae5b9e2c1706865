import ArgumentParser
import FarmCluster
import FarmJSON
import FarmLists
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmSystem
import Foundation
import Glibc

/// `cluster --hosts 1,2,3 --workers 6 --files 600`: farm on a GlusterFS volume made on this machine
/// (FarmCluster; root, /dev/fuse). First the throughput of one list of small JPEGs, downloads only, on
/// 1, 2 and 3 hosts sharing `--workers` workers between them: the hosts are this machine's cores, so
/// the figure shows what sharing the spool across mounts costs, not what more machines bring. Then the
/// status lag where the watcher must poll: on two hosts, a job completed through one host's mount, until
/// the summary read through a third mount shows it. Everything the runs make is removed (the ledger).
struct ClusterBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "Measure farm on a GlusterFS volume: throughput on 1, 2, 3 hosts, and the status lag while polling.")

    @Option(help: "Host counts to measure, comma-separated.") var hosts = "1,2,3"
    @Option(help: "Workers in all, shared between the hosts.") var workers = 6
    @Option(help: "Files in the list.") var files = 600
    @Option(help: "Bytes per file.") var size = 16384
    @Option(help: "Completions whose status lag is measured.") var changes = 100
    @Option(help: "The farm executable (default: next to this one).") var farm: String?

    func run() throws {
        if let missing = GlusterVolume.missing() { throw ValidationError("cannot make a cluster here: " + missing) }
        let farm = self.farm ?? Spawned.sibling("farm")
        let scratch = NSTemporaryDirectory() + "/farm-bench-cluster-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let origin = Origin()
        let (paths, side) = try BenchmarkJPEG.serve(files, size: size, under: "/c", by: origin, scratch: scratch)
        try origin.start()
        defer { origin.stop() }
        let manifest = scratch + "/cluster.json"
        try Data(JSON.encode(paths.map { origin.url(for: $0) })).write(to: URL(fileURLWithPath: manifest))
        print("\(files) JPEGs (\(side)×\(side)) of \(size) bytes, downloads only, \(workers) workers shared by the hosts")
        for count in hosts.split(separator: ",").compactMap({ Int($0) }) {
            try onCluster(count, scratch + "/run-\(count)") { cluster in
                try throughput(cluster, farm: farm, manifest: manifest)
            }
        }
        try onCluster(2, scratch + "/run-lag") { cluster in try statusLag(cluster, farm: farm) }
    }

    /// Makes a cluster of `count` hosts in `directory`, runs `body` on it, and removes all it made.
    private func onCluster(_ count: Int, _ directory: String, _ body: (ClusterHosts) throws -> Void) throws {
        let ledger = try Ledger(directory: directory)
        let outcome = Result { try body(try ClusterHosts.make(count: count, ledger: ledger)) }
        for problem in ledger.tearDown() { print("  left behind: " + problem) }
        try outcome.get()
    }

    private func throughput(_ cluster: ClusterHosts, farm: String, manifest: String) throws {
        let control = cluster.control
        _ = try Child.run(farm, ["add", manifest, "--spool", control.spool])
        let start = Clock.monotonic()
        for (number, host) in cluster.hosts.enumerated() {
            // The workers split as evenly as they go: the first hosts take one more.
            let share = workers / cluster.hosts.count + (number < workers % cluster.hosts.count ? 1 : 0)
            _ = try Child.run(host.launcher[0], Array(host.launcher.dropFirst())
                + [farm, "start", "--workers", String(max(1, share)), "--no-convert", "--spool", host.spool])
        }
        _ = try Child.run(farm, ["wait", "--timeout", "600", "--spool", control.spool])
        let seconds = Clock.monotonic() - start
        for host in cluster.hosts {
            _ = try Child.run(host.launcher[0], Array(host.launcher.dropFirst()) + [farm, "stop", "--spool", host.spool])
        }
        let done = try Spool(root: control.spool, create: false).inventory().filter { $0.state == .done }.count
        guard done == files else { throw ValidationError("only \(done) of \(files) jobs done") }
        print(String(format: "%d host(s): %d files in %.2f s = %.1f files/s", cluster.hosts.count, files, seconds,
                     Double(files) / seconds))
    }

    /// The watcher runs on the first host (it polls: inotify sees nothing of other mounts); jobs are
    /// claimed up front and completed one at a time through the second host's mount; the summary is
    /// read through the control mount every millisecond until it counts the completion.
    private func statusLag(_ cluster: ClusterHosts, farm: String) throws {
        let control = try Spool(root: cluster.control.spool)
        let list = ListID.of(name: "lag.json")
        let jobs = (0..<changes + 1).map {
            NewJob(name: JobName(list: list, index: $0), record: JobRecord(url: "http://127.0.0.1:1/\($0).jpg", id: "r\($0)"))
        }
        let record = ListRecord(name: "lag.json", total: jobs.count, digest: "bench", source: "bench", added: "")
        try control.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: record.encoded())])
        let completer = try Spool(root: cluster.hosts[1].spool, create: false)
        let claimer = Claimer(spool: completer)
        var claims: [Claim] = []
        while let claim = try claimer.claim() { claims.append(claim) }

        let host = cluster.hosts[0]
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: host.launcher[0])
        watcher.arguments = Array(host.launcher.dropFirst()) + [farm, "watch", "--spool", host.spool]
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        defer {
            kill(watcher.processIdentifier, SIGTERM)
            watcher.waitUntilExit()
        }
        let summarized = { SummaryFile.read(control)?.document.list(id: list) != nil }
        guard Clock.poll(every: 0.001, for: 30, until: summarized) == .ready else {
            throw ValidationError("the watcher wrote no summary within 30 s")
        }
        var lags: [Double] = []
        var missed = 0
        for (done, claim) in claims.prefix(changes).enumerated() {
            let start = Clock.monotonic()
            try completer.complete(claim, .done)
            let seen = Clock.poll(every: 0.001, for: 10) {
                SummaryFile.read(control)?.document.list(id: list)?.done == done + 1
            }
            if seen == .ready {
                lags.append(Clock.monotonic() - start)
            } else {
                missed += 1
            }
        }
        guard !lags.isEmpty else { throw ValidationError("the summary never showed a completion") }
        func at(_ quantile: Double) -> String { String(format: "%.0f ms", lags.quantile(quantile) * 1000) }
        print("status lag while polling (completed through h2's mount, watcher on h1, read through a third mount), "
            + "\(lags.count) completions, \(missed) missed: p50 \(at(0.5)), p99 \(at(0.99)), max \(at(1.0))")
    }
}
