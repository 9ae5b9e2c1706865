import ArgumentParser
import FarmCluster
import FarmDesired
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmSystem
import Foundation
import Glibc

/// `farm-chaos cluster` (run by `bin/cluster`): proves SPEC §11 on this machine. It makes a one-brick
/// GlusterFS volume and `--hosts` farm hosts as network namespaces, each with its own mount of it and
/// its own host name, runs `farm start --workers N` on every host against the corpus of the
/// one-machine chaos, then for `--seconds` SIGKILLs processes by role on every host, cuts hosts off
/// for longer than the lease and kills whole hosts, lets the farm finish, and checks every resource
/// (sha256 of every output against the origin's, `farm fsck`). It then removes everything it made,
/// whatever happened (the ledger lists it). Exits 1 on any finding, and refuses in one line where
/// the machine cannot run a cluster (no root, no /dev/fuse, no GlusterFS).
struct Cluster: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "On a GlusterFS cluster made on this machine: kill processes, cut hosts off, prove nothing was lost.")

    @Option(help: "Farm hosts (network namespaces), each with its own mount of the volume.")
    var hosts: Int = 3
    @Option(help: "How long the chaos lasts, in seconds.")
    var seconds: Double = 120
    @Option(help: "Workers per host at the start; the chaos scales each host one below or above.")
    var workers: Int = 3
    @Option(help: "SIGKILLs per second, on average.")
    var killsPerSecond: Double = 1
    @Option(help: "Resources in the base manifest (extra lists are added during the run).")
    var resources: Int = 200
    @Option(help: "The lease, in seconds: cut-offs last 3 to 8 s longer.")
    var lease: Double = 5
    @Flag(help: "Keep the brick (the spool) and the logs; the rest is removed all the same.")
    var keep = false
    @OptionGroup var options: RunOptions

    func validate() throws {
        guard (1...8).contains(hosts), (1...16).contains(workers), killsPerSecond > 0, resources >= 20, lease >= 1
        else { throw ValidationError("need --hosts 1…8, --workers 1…16, --kills-per-second > 0, --resources ≥ 20, --lease ≥ 1") }
        if let dir = options.dir, FileManager.default.fileExists(atPath: dir) {
            throw ValidationError("--dir \(dir) exists: the run makes it, and removes it at the end")
        }
        guard hosts == 1 || seconds >= lease + 10 else {
            throw ValidationError("need --seconds ≥ lease + 10 for a cut-off longer than the lease")
        }
    }

    func run() throws {
        if let missing = GlusterVolume.missing() { throw ChaosError("cannot make a cluster here: " + missing) }
        FarmChaos.catchStopSignals()
        let executable = try FarmChaos.farmExecutable(options.farm)
        let ledger = try options.dir.map { try Ledger(directory: $0) }
            ?? Ledger(directory: FarmChaos.makeTemporaryDirectory("farm-cluster"), made: true)
        let outcome = Result { try chaos(ledger: ledger, executable: executable) }
        let started = Clock.monotonic()
        let problems = ledger.tearDown(keepDirectories: keep)
        print(String(format: "farm-cluster: removed what it made in %.1f s", Clock.monotonic() - started)
            + (keep ? "; kept the brick and logs in \(ledger.directory)" : ""))
        for problem in problems { print("farm-cluster: left behind: " + problem) }
        let sound = try outcome.get()
        guard sound, problems.isEmpty else {
            print("farm-cluster: FAILED" + (keep ? "" : "; run again with --keep to keep the spool and the logs"))
            throw ExitCode(1)
        }
        print("farm-cluster: nothing lost, nothing doubled")
    }

    /// The run itself, from the set-up to the figures; true when they are sound (and meet the goals
    /// when `strict`).
    private func chaos(ledger: Ledger, executable: String) throws -> Bool {
        let seed = options.seed ?? UInt64.random(in: 0...UInt64(UInt32.max))
        let setUpStart = Clock.monotonic()
        let cluster = try ClusterHosts.make(count: hosts, ledger: ledger)
        let setUp = Clock.monotonic() - setUpStart
        let control = FarmCommand(executable: executable, on: cluster.control)
        let farms = cluster.hosts.map { FarmCommand(executable: executable, on: $0) }
        let spool = try Spool(root: control.spool)
        let origin = Origin()
        try origin.start()
        defer { origin.stop() }
        let observer = Observer(spool: spool, hostOf: { cluster.host(of: $0) ?? "" }, every: 0.05)
        var observing = false
        defer {
            if observing { _ = observer.stop() }
        }

        let smallSeconds = min(3, max(0.2, 2.6 * seconds / Double(resources)))
        let corpus = ChaosCorpus(origin: origin, directory: ledger.directory, seed: seed, smallSeconds: smallSeconds)
        let base = try corpus.makeBase(count: resources)
        print("farm-cluster: \(hosts) hosts × \(workers) workers on GlusterFS volume \(cluster.volume.name) "
            + String(format: "(set up in %.1f s), ", setUp)
            + "\(corpus.resources.count) resources (\(corpus.bytes / 1_000_000) MB), seed \(seed)")
        try control.must(["add", base])
        let start = ["start", "--workers", String(workers), "--lease", String(lease)]
        for farm in farms { try farm.must(start) }
        observer.start()
        observing = true

        let outages = Outages(cluster: cluster, spool: spool, observer: observer, lease: lease,
                              start: { try FarmCommand(executable: executable, on: $0).must(start) }, seed: seed ^ 0xC07)
        let mayhem = Mayhem(hosts: zip(cluster.hosts, farms).map { ChaosHost(name: $0.name, farm: $1, owns: $0.owns) },
                            spool: spool, corpus: corpus, observer: observer, killsPerSecond: killsPerSecond,
                            workers: max(1, workers - 1)...(workers + 1), seed: seed ^ 0x5EED, outages: outages)
        do { try mayhem.run(seconds: seconds) } catch {
            try? outages.endAll()
            throw error
        }
        try outages.endAll()
        print("farm-cluster: chaos over after \(mayhem.tally.total) kills and \(outages.done.count) outages; "
            + "the farm finishes")

        // Whatever the chaos left, every host runs again with the initial settings.
        for farm in farms {
            try farm.must(start)
            try farm.must(["scale", String(workers), "--transfers", String(Desired.defaultTransfers)])
        }
        // Adds killed half-way are run again: the lists must end up exactly the union of the manifests. One
        // that fails is a finding, and is tried again (an add is idempotent), as a user would.
        var tally = mayhem.tally
        for manifest in corpus.manifests {
            for attempt in 1...3 {
                let added = try control.run(["add", manifest])
                if added.status == 0 { break }
                tally.commandErrors.append("farm add \(manifest) after the chaos (try \(attempt)) exited \(added.status): "
                    + added.error.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        let finished = try waitForFarm(control, spool: spool, findings: &tally.commandErrors)
        let reclaims = observer.stop()
        observing = false
        FarmChaos.stopFarm(farms, spool: spool, observer: observer)

        let verdict = Verdict.check(spool: spool, corpus: corpus, farm: control,
                                    mounts: cluster.hosts.map(\.spool))
        var figures = Report(seconds: seconds, killsPerSecond: killsPerSecond, seed: seed, lease: lease, corpus: corpus,
                             bytesServed: origin.bytesServed, verdict: verdict, tally: tally,
                             reclaims: reclaims, finished: finished)
        figures.cluster = ClusterFigures(
            volume: cluster.volume.name, hosts: hosts, workersPerHost: workers, outages: outages.done, outageReclaims: reclaims.outage,
            heldAtReturn: reclaims.heldAtReturn, clientLogBytes: cluster.volume.clientLogBytes(), setUpSeconds: setUp)
        print(figures.table())
        verdict.printFindings(commandErrors: tally.commandErrors)
        if let report = options.report { try figures.write(to: report) }
        if !finished { print("the farm did not finish within \(Int(options.drainTimeout)) s") }
        return figures.sound && (!options.strict || figures.goalsMet)
    }

    /// `farm wait` in short rounds, so that an interruption is not left waiting for the drain timeout;
    /// true when every list finished. A wait that says so while a scan of the spool finds a list not
    /// finished is a finding (it read a summary older than the last add), and the farm is waited for again.
    private func waitForFarm(_ farm: FarmCommand, spool: Spool, findings: inout [String]) throws -> Bool {
        let deadline = Clock.monotonic() + options.drainTimeout
        while !interrupted.load(ordering: .relaxed) && Clock.monotonic() < deadline {
            let waited = try farm.run(["wait", "--timeout", "5"], timeout: 60)
            if waited.status == 0 || waited.status == 1 {
                let open = StatusScan.summary(spool).lists.filter { $0.state != .finished }
                if open.isEmpty { return true }
                let said = (waited.output + waited.error).trimmingCharacters(in: .whitespacesAndNewlines)
                findings.append("farm wait exited \(waited.status) (\(said)) while \(open.count) list(s) were not finished: "
                    + open.prefix(3).map { "\($0.name) \($0.done + $0.failed)/\($0.total)" }.joined(separator: ", "))
                usleep(500_000)
                continue
            }
            if waited.status != 3 {
                throw ChaosError("farm wait exited \(waited.status): "
                    + waited.error.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        return false
    }
}
