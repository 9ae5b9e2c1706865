import ArgumentParser
import FarmJSON
import FarmRegistry
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `peers`: farm against wget2, curl and aria2c on the same corpus, served by nginx on 127.0.0.1,
/// each writing to the same file system. Rounds alternate the order of the tools; round 0 is a
/// warm-up and is not counted. Between runs the outputs are removed (many small files only once
/// every set is done) and the disk synced (not timed), so no run pays for another's write-back.
/// `--delay` makes the origin slow (nginx still serves every file, after a wait), `--https` serves it
/// over TLS with HTTP/2; either counts the connections each tool opened.
struct PeersBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peers",
        abstract: "Time farm against wget2, curl and aria2c downloading the same corpus from nginx on 127.0.0.1.")

    @OptionGroup var corpus: CorpusRoot
    @Option(help: "Directories to download into, comma-separated (e.g. a tmpfs and a disk).") var dirs = "/dev/shm"
    @OptionGroup var sets: CorpusSets
    @OptionGroup var rounds: Rounds
    @Option(help: "Tools, comma-separated: farm-off, farm-on, farm-limited-off (--per-host = the workers), wget2, curl, aria2c, wget2-vips (wget2, then the conversions by unzip and vipsthumbnail), floor-bare and floor-spool (farm's transfer engine in farm's shape, with no spool or only the steps its guarantees need: see `floor`).")
    var tools = "farm-off,farm-on,wget2,curl,aria2c"
    @Option(help: "Parallel transfers: farm's transfers in all, wget2 threads, curl and aria2c parallelism.")
    var parallel = 6
    @Option(help: ArgumentHelp("farm's worker processes, which share the parallel transfers (default: one a transfer; "
        + "the baseline too with --baseline-transfers).", valueName: "workers"))
    var farmWorkers: Int?
    @Option(help: "Another farm executable, run as the tools base-off and base-on (before/after a change, same run).")
    var baseline: String?
    @Flag(help: "The baseline knows --transfers: it runs in farm's shape (else one worker a transfer).")
    var baselineTransfers = false
    @Option(help: "Seconds nginx waits before every response (its echo module), e.g. 0.02: a slow origin.")
    var delay = 0.0
    @Flag(help: "Serve over HTTPS with HTTP/2, from a CA made for the run that each tool is told to trust.")
    var https = false
    @Flag(help: "Sample the running farm's memory every 0.1 s: VmRSS and Pss summed over its registered processes.")
    var sampleMemory = false
    @Flag(help: "Log every request (nginx) to tell when each tool's last byte was served, and compare farm's with conversions on and off.")
    var lastByte = false

    struct Measurement {
        var seconds: Double
        /// Largest single process, and the sum of the processes running together (the farm's roles).
        var peakMax: Int
        var peakSum: Int
        /// A farm's `add`, `start` and `wait`, apart: where its fixed costs go.
        var phases: [Double] = []
        /// CPU seconds of the tool's processes (all of a farm's), and of nginx's during the run: on two
        /// saturated cores the wall time follows them.
        var cpu = 0.0
        var serverCPU = 0.0
        /// nginx's log of the run's requests (connections, each a TLS handshake over HTTPS, and their
        /// timing); nil when not counted.
        var connections: ConnectionLog?
        /// When the tool (for farm: `farm add`) was started, Unix seconds; the timed run ends `seconds` later.
        var launched = 0.0
        /// The largest sums of the farm's VmRSS and Pss seen while it ran, and over how many processes.
        var sampled: (rss: Int, pss: Int, processes: Int)?
    }

    /// Counted when the origin is slow or on TLS (that is where a connection costs), or when asked when
    /// the last byte was served.
    private var countsConnections: Bool { delay > 0 || https || lastByte }

    func run() throws {
        let toolList = tools.split(separator: ",").map(String.init)
        // nginx resolves relative paths against its prefix: hand every path over absolute.
        let dirList = dirs.split(separator: ",").map { URL(fileURLWithPath: String($0)).standardizedFileURL.path }
        let corpus = try self.corpus.make()
        let corpora = try sets.make(under: corpus)
        let work = corpus + "/nginx-\(getpid())"
        let certificates = https ? try BenchmarkCertificates(directory: work + "/tls") : nil
        let nginx = try Nginx(root: corpus, directory: work, extra: delay > 0 ? Self.delayed(delay) : "",
                              modules: delay > 0 ? [try Self.echoModule()] : [], tls: certificates,
                              countConnections: countsConnections)
        defer {
            nginx.stop()
            try? FileManager.default.removeItem(atPath: work)
        }
        // Each set's outputs go when every set is done: on ext4 the set after would otherwise pay for
        // their clean-up (see `keptFiles`).
        var bases: [String] = []
        defer { for base in bases { try? FileManager.default.removeItem(atPath: base) } }
        for (label, set) in corpora {
            for dir in dirList {
                let base = dir + "/farm-peers-\(getpid())-\(label)"
                bases.append(base)
                try compare(set, label: label, in: dir, base: base, tools: toolList, nginx: nginx,
                            caFile: certificates?.ca)
            }
        }
    }

    /// Runs every tool on `set` in `dir`, each run in a directory of its own under `base`.
    private func compare(_ set: Corpus, label: String, in dir: String, base: String, tools: [String],
                         nginx: Nginx, caFile: String?) throws {
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let urls = set.paths.map { nginx.url($0) }
        try (urls.joined(separator: "\n") + "\n").write(toFile: base + "/urls.txt", atomically: true, encoding: .utf8)
        try Data(JSON.encode(urls)).write(to: URL(fileURLWithPath: base + "/\(label).json"))

        let megabytes = Double(set.bytes) / 1e6
        print("\n## \(label) set: \(set.paths.count) files, \(String(format: "%.1f", megabytes)) MB, "
            + "written to \(dir) (\(Self.fileSystem(dir))); \(rounds.count) rounds after a warm-up, \(parallel) in parallel"
            + (https ? "; HTTPS (HTTP/2 where the tool asks)" : "")
            + (delay > 0 ? String(format: "; %.0f ms added to every response (floor %.2f s = files / %d × delay)",
                                  delay * 1000, Double(set.paths.count) / Double(parallel) * delay, parallel) : ""))
        var results: [String: [Measurement]] = [:]
        try rounds.each(tools, under: base) { tool, round, run in
            let serverBefore = nginx.cpu()
            if countsConnections { _ = nginx.connections() }
            var measured = try measure(tool, set: set, label: label, base: base, run: run, caFile: caFile)
            measured.serverCPU = nginx.cpu() - serverBefore
            if countsConnections { measured.connections = nginx.connections() }
            // Many small files are kept until every set is done (their base directory goes then):
            // on ext4, files created within minutes of deleting thousands cost up to 300 µs of
            // kernel time each (its allocator skips recently deleted inodes one by one), so the
            // next run would pay per file created for the previous run's clean-up.
            if set.paths.count <= Self.keptFiles { try? FileManager.default.removeItem(atPath: run) }
            sync()
            if round > 0 { results[tool, default: []].append(measured) }
        }
        print("tool                      median s   min–max s          files/s      MB/s   peak RSS largest / sum")
        for tool in tools {
            guard let runs = results[tool], !runs.isEmpty else { continue }
            let seconds = runs.map(\.seconds).sorted()
            let median = seconds.median
            print(Self.label(tool).padded(26) + String(format: "%.2f", median).padded(11)
                + String(format: "%.2f–%.2f", seconds.first!, seconds.last!).padded(19)
                + String(format: "%.0f", Double(set.paths.count) / median).padded(13)
                + String(format: "%.1f", megabytes / median).padded(10)
                + String(format: "%.0f / %.0f MB", Double(runs.map(\.peakMax).max()!) / 1e6,
                         Double(runs.map(\.peakSum).max()!) / 1e6))
        }
        for tool in tools {
            guard let runs = results[tool], let first = runs.first, !first.phases.isEmpty else { continue }
            let medians = first.phases.indices.map { phase in runs.map { $0.phases[phase] }.median }
            print("\(Self.label(tool)) phases (median s): " + zip(["add", "start", "wait"], medians)
                .map { String(format: "%@ %.3f", $0, $1) }.joined(separator: ", "))
        }
        for tool in tools {
            guard let runs = results[tool], !runs.isEmpty else { continue }
            let cpu = runs.map(\.cpu).median
            let server = runs.map(\.serverCPU).median
            let perFile = 1e6 / Double(set.paths.count)
            print("\(Self.label(tool)) CPU (median): "
                + String(format: "%.3f s + nginx %.3f s = %.0f µs + %.0f µs a file",
                         cpu, server, cpu * perFile, server * perFile))
        }
        printLayers(results, tools: tools, files: set.paths.count)
        if countsConnections {
            print("tool                      connections   TLS resumed   protocol   first request at   "
                + "connections' first requests after it: mean / last   last response to exit   in flight (mean)   "
                + "idle between requests on a connection: mean / p90")
        }
        for tool in tools {
            guard let runs = results[tool], runs.first?.connections != nil else { continue }
            let logs = runs.compactMap(\.connections)
            let medianOf = { (value: (ConnectionLog) -> Double) in logs.map(value).median }
            let head = runs.map { $0.connections!.firstStart - $0.launched }.median
            let tail = runs.map { $0.launched + $0.seconds - $0.connections!.lastEnd }.median
            let gaps = logs.flatMap(\.gaps)
            let mean = gaps.isEmpty ? 0 : gaps.reduce(0, +) / Double(gaps.count)
            print(Self.label(tool).padded(26) + String(format: "%.0f", medianOf { Double($0.connections) }).padded(14)
                + String(format: "%.0f", medianOf { Double($0.resumed) }).padded(14)
                + Set(logs.flatMap(\.protocols)).sorted().joined(separator: ",").padded(11)
                + String(format: "%.3f s", head).padded(19)
                + String(format: "%.3f / %.3f s", medianOf(\.rampMean), medianOf(\.rampLast)).padded(51)
                + String(format: "%.3f s", tail).padded(24)
                // Requests shorter than nginx's millisecond clock would count as none in flight.
                + (delay > 0 ? String(format: "%.1f", medianOf(\.inFlight)) : "-").padded(19)
                + (gaps.isEmpty ? "-" : String(format: "%.2f / %.2f ms", mean * 1000, gaps.quantile(0.9) * 1000)))
        }
        if lastByte { printLastBytes(results, tools: tools) }
        for tool in tools {
            guard let runs = results[tool], !runs.isEmpty else { continue }
            let sampled = runs.compactMap(\.sampled)
            guard let processes = sampled.map(\.processes).max() else { continue }
            print("\(Self.label(tool)) memory while running (largest sample of \(processes) processes): "
                + String(format: "VmRSS summed %.0f MB, Pss summed %.0f MB",
                         Double(sampled.map(\.rss).max()!) / 1e6, Double(sampled.map(\.pss).max()!) / 1e6))
        }
        // Ratios of throughput, paired within each round (same machine state), then the median.
        let farms = tools.filter { $0.hasPrefix("farm") || $0.hasPrefix("base") || $0.hasPrefix("floor") }
        for farm in farms {
            // Against every peer, a baseline farm only in the same mode, and the floors (a farm against them).
            let others = tools.filter { !farms.contains($0) || ($0.hasPrefix("floor") && !farm.hasPrefix("floor"))
                || ($0.hasPrefix("base") && farm.hasPrefix("farm")
                && $0.suffix(3) == farm.suffix(3)) || (farm == "farm-limited-off" && $0 == "farm-off") }
            let ratios = others.compactMap { peer -> String? in
                guard let mine = results[farm], let theirs = results[peer], mine.count == theirs.count else { return nil }
                let paired = zip(mine, theirs).map { $1.seconds / $0.seconds }
                return String(format: "%.2f× %@", paired.median, peer)
            }
            if !ratios.isEmpty { print("\(Self.label(farm)) / peer (throughput): " + ratios.joined(separator: ", ")) }
        }
        // Against the best peer of each round: the fastest of wget2, curl and aria2c that round.
        let peers = tools.filter { !farms.contains($0) && results[$0] != nil }
        for farm in farms {
            guard let mine = results[farm], !peers.isEmpty,
                  peers.allSatisfy({ results[$0]!.count == mine.count }) else { continue }
            let paired = mine.indices.map { round in
                peers.map { results[$0]![round].seconds }.min()! / mine[round].seconds
            }
            let best = peers.min { results[$0]!.map(\.seconds).median < results[$1]!.map(\.seconds).median }!
            print("\(Self.label(farm)) / best peer of each round (throughput): "
                + String(format: "%.2f× (best by median: %@)", paired.median, best))
        }
    }

    /// Where a file's CPU goes, layer on layer (issue 62's table): libcurl as curl's own program pays it, farm's
    /// engine around the same libcurl (floor-bare), plus what SPEC §2's guarantees cost (floor-spool), plus
    /// the rest of a farm (farm-off: add, start, status, leases, outcomes, watcher, wait). Each row's CPU a
    /// file (the tool's processes, medians), what it adds to the row above, and its throughput ÷ wget2's,
    /// paired by round. Printed when the run has curl and at least one of the others.
    private func printLayers(_ results: [String: [Measurement]], tools: [String], files: Int) {
        let layers = [("curl", "curl --parallel (libcurl)"), ("wget2", "wget2"),
                      ("floor-bare", "floor-bare: farm's engine, open, download, close"),
                      ("floor-spool", "floor-spool: + claim, partial, rename, completion"),
                      ("farm-off", "farm (--no-convert): + add, start, status, leases, outcomes, watcher, wait")]
            .filter { results[$0.0]?.isEmpty == false }
        guard layers.contains(where: { $0.0 == "curl" }), layers.count > 1 else { return }
        let cpu = { (tool: String) in results[tool]!.map(\.cpu).median * 1e6 / Double(files) }
        print("layer".padded(76) + "CPU a file   added      throughput ÷ wget2")
        var below: Double?
        for (tool, label) in layers {
            let mine = cpu(tool)
            // wget2 is a peer beside curl, not a layer on it: it adds to nothing and nothing adds to it.
            let added = tool == "wget2" || tool == "curl" ? "—" : below.map { String(format: "%+.0f µs", mine - $0) } ?? "—"
            if tool != "wget2" { below = mine }
            var ratio = "—"
            if let theirs = results["wget2"], let runs = results[tool], theirs.count == runs.count {
                ratio = String(format: "%.2f×", zip(runs, theirs).map { $1.seconds / $0.seconds }.median)
            }
            print(label.padded(76) + String(format: "%.0f µs", mine).padded(13) + added.padded(11) + ratio)
        }
    }

    /// When each tool's last byte was served, from its launch (nginx's log), and for farm the ratio of
    /// that time with conversions on to that time with them off, paired by round (issue 26's goal 4:
    /// conversions must not hold the transfers back).
    private func printLastBytes(_ results: [String: [Measurement]], tools: [String]) {
        let lastByte = { (run: Measurement) in (run.connections?.lastEnd ?? run.launched) - run.launched }
        for tool in tools {
            guard let runs = results[tool], !runs.isEmpty else { continue }
            print("\(Self.label(tool)) last byte served (median): "
                + String(format: "%.2f s after launch, whole run %.2f s", runs.map(lastByte).median,
                         runs.map(\.seconds).median))
        }
        for (on, off) in [("farm-on", "farm-off"), ("base-on", "base-off")] {
            guard let withConversions = results[on], let without = results[off],
                  withConversions.count == without.count else { continue }
            let ratio = zip(withConversions, without).map { lastByte($0) / lastByte($1) }.median
            print("\(Self.label(on)) last byte / \(Self.label(off)) last byte: " + String(format: "%.2f×", ratio))
        }
    }

    private func measure(_ tool: String, set: Corpus, label: String, base: String, run: String,
                         caFile: String?) throws -> Measurement {
        let log = run + ".log"
        defer { unlink(log) }
        // Each tool's own way to trust the CA (none of them reads it from the environment alike).
        func trust(_ option: String, joined: Bool = true) -> [String] {
            guard let caFile else { return [] }
            return joined ? [option + "=" + caFile] : [option, caFile]
        }
        // wget2's command line: the wget2 run's, and the wget2-vips run's fetch.
        let wget2 = ["--no-config", "-q", "--max-threads=\(parallel)", "--no-robots", "-i", base + "/urls.txt",
                     "-P", run] + trust("--ca-certificate")
        switch tool {
        case "farm-off", "farm-on", "base-off", "base-on", "farm-limited-off":
            let isBase = tool.hasPrefix("base")
            let farm = isBase ? (baseline ?? "") : Spawned.sibling("farm")
            // The per-host limit at its loosest binding: every transfer may be on the one host.
            let limit = tool == "farm-limited-off" ? ["--per-host", String(parallel)] : []
            let farmShape = !isBase || baselineTransfers
            let workers = farmShape ? farmWorkers ?? parallel : parallel
            let shape = ["--workers", String(workers)]
                + (farmShape ? ["--transfers", String((parallel + workers - 1) / workers)] : [])
            return try measureFarm(farm, convert: tool.hasSuffix("-on"), manifest: base + "/\(label).json", set: set,
                                   run: run, log: log, startArguments: shape + limit + trust("--ca-file", joined: false))
        case "floor-bare", "floor-spool":
            // farm's transfer engine in farm's shape, with no spool or with only its unavoidable steps.
            let workers = farmWorkers ?? parallel
            let spool = tool == "floor-spool" ? run + ".spool" : nil
            if let spool { try FloorBenchmark.prepare(spool: spool, jobs: set.paths.count) }
            defer { if let spool { try? FileManager.default.removeItem(atPath: spool) } }
            let result = try Spawned.run(Spawned.sibling("farm-benchmark"), [
                "floor", "--urls", base + "/urls.txt", "--out", run, "--processes", String(workers),
                "--transfers", String((parallel + workers - 1) / workers),
            ] + (spool.map { ["--spool", $0] } ?? []) + trust("--ca-file", joined: false), log: log)
            try check(run, set: set, tool: tool)
            return Measurement(oneProcess: result)
        case "wget2":
            let result = try Spawned.run("wget2", wget2, log: log)
            try check(run, set: set, tool: tool)
            return Measurement(oneProcess: result)
        case "wget2-vips":
            // The whole job by hand: the downloads, then what farm makes of them (each ZIP unpacked, page 1
            // of each PDF at farm's display size, a 256-pixel thumbnail of every picture), on every core.
            let fetched = try Spawned.run("wget2", wget2, log: log)
            try check(run, set: set, tool: tool)
            let converted = try Spawned.run("bash", ["-c", Self.vipsScript, "vips", run], log: log)
            return Measurement(seconds: fetched.seconds + converted.seconds,
                               peakMax: max(fetched.peakRSS, converted.peakRSS), peakSum: fetched.peakRSS,
                               cpu: fetched.cpu + converted.cpu, launched: fetched.started)
        case "curl":
            let urls = try String(contentsOfFile: base + "/urls.txt", encoding: .utf8).split(separator: "\n")
            let config = urls.map { "url = \"\($0)\"\noutput = \"\(run)/\(($0 as NSString).lastPathComponent)\"\n" }
            try config.joined().write(toFile: run + ".curl", atomically: true, encoding: .utf8)
            defer { unlink(run + ".curl") }
            let result = try Spawned.run("curl", ["-sS", "--fail", "--parallel", "--parallel-max", String(parallel),
                                                  "-K", run + ".curl"] + trust("--cacert", joined: false), log: log)
            try check(run, set: set, tool: tool)
            return Measurement(oneProcess: result)
        case "aria2c":
            // No pre-allocation: the others write files as the bytes come, and so does aria2c then.
            let result = try Spawned.run("aria2c", ["--no-conf=true", "-q", "-j\(parallel)", "--file-allocation=none",
                                                    "--auto-file-renaming=false", "--allow-overwrite=true",
                                                    "-i", base + "/urls.txt", "-d", run] + trust("--ca-certificate"),
                                         log: log)
            try check(run, set: set, tool: tool)
            return Measurement(oneProcess: result)
        default:
            throw ValidationError("unknown tool \(tool): use farm-off, farm-on, wget2, curl, aria2c or wget2-vips")
        }
    }

    /// add + start + wait, timed as one; the roles' peak RSS and CPU read before `farm stop` (VmHWM is
    /// a peak).
    private func measureFarm(_ farm: String, convert: Bool, manifest: String, set: Corpus, run: String,
                             log: String, startArguments: [String] = []) throws -> Measurement {
        let spool = run + "/spool"
        let start = Clock.monotonic()
        let add = try Spawned.run(farm, ["add", manifest, "--spool", spool], log: log)
        defer { _ = try? Spawned.run(farm, ["stop", "--spool", spool], log: log, check: false) }
        let started = try Spawned.run(farm, ["start", "--spool", spool]
                                      + (convert ? [] : ["--no-convert"]) + startArguments, log: log)
        let opened = try Spool(root: spool, create: false)
        // `farm ps`'s processes, registered before `farm start` returned.
        let running = sampleMemory ? opened.registry.processes().map(\.pid) : []
        var sampled: (rss: Int, pss: Int, processes: Int) = (0, 0, running.count)
        let waited = try Spawned.run(farm, ["wait", "--timeout", "3600", "--spool", spool], log: log,
                                     sample: sampleMemory ? {
            let memory = running.map(Spawned.memory(of:))
            sampled.rss = max(sampled.rss, memory.map(\.rss).reduce(0, +))
            sampled.pss = max(sampled.pss, memory.map(\.pss).reduce(0, +))
        } : nil)
        let seconds = Clock.monotonic() - start
        let processes = opened.registry.processes()
        let peaks = processes.map { Spawned.peakRSS(of: $0.pid) }
        let cpu = [add, started, waited].map(\.cpu).reduce(0, +)
            + processes.map { Spawned.cpu(of: $0.pid) }.reduce(0, +)
        let done = opened.inventory().filter { $0.state == .done }.count
        guard done == set.paths.count else {
            throw ValidationError("farm finished \(done) of \(set.paths.count) jobs; see \(spool)/log/farm.log")
        }
        return Measurement(seconds: seconds, peakMax: max(add.peakRSS, peaks.max() ?? 0), peakSum: peaks.reduce(0, +),
                           phases: [add.seconds, started.seconds, waited.seconds], cpu: cpu, launched: add.started,
                           sampled: sampleMemory ? sampled : nil)
    }

    /// What `wget2-vips` runs in the download directory ($1) after wget2: unzip, vipsthumbnail (libvips-tools).
    static let vipsScript = """
        set -euo pipefail
        cd "$1"
        cores=$(nproc)
        for zip in *.zip; do unzip -qq -o "$zip" -d "$zip.unzipped"; done
        find . -name '*.pdf' -print0 | xargs -0 -r -P "$cores" -n 32 vipsthumbnail -s 1600 -o '%s.page1.png'
        find . \\( -name '*.jpg' -o -name '*.png' \\) -print0 | xargs -0 -r -P "$cores" -n 32 vipsthumbnail -s 256 -o '%s.thumb.png'
        """

    /// Every file there, with the corpus's total size: a tool that skipped or cut a file is not timed.
    private func check(_ run: String, set: Corpus, tool: String) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: run)) ?? []
        let bytes = names.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: run + "/" + name)[.size] as? Int) ?? 0)
        }
        guard names.count == set.paths.count, bytes == set.bytes else {
            throw ValidationError("\(tool) wrote \(names.count) files, \(bytes) bytes; expected \(set.paths.count), \(set.bytes)")
        }
    }

    /// Every response after `seconds`, the file still served by nginx's static module (sendfile): the
    /// echo module sleeps on a timer, then hands the request to a named location that serves it.
    static func delayed(_ seconds: Double) -> String {
        """
        location / {
                    echo_sleep \(seconds);
                    echo_exec @file;
                }
                location @file { }
        """
    }

    /// Debian's libnginx-mod-http-echo.
    static func echoModule() throws -> String {
        let path = "/usr/lib/nginx/modules/ngx_http_echo_module.so"
        guard access(path, R_OK) == 0 else {
            throw ValidationError("--delay needs nginx's echo module (\(path)): install libnginx-mod-http-echo")
        }
        return path
    }

    /// Above this many files a set's runs are kept until the comparison ends (see `compare`).
    static let keptFiles = 100

    static func label(_ tool: String) -> String {
        switch tool {
        case "farm-off": return "farm (conversions off)"
        case "farm-on": return "farm (conversions on)"
        case "base-off": return "baseline (conversions off)"
        case "base-on": return "baseline (conversions on)"
        case "farm-limited-off": return "farm (--per-host = workers, conversions off)"
        default: return tool
        }
    }

    /// tmpfs, ext4, …: the type of the longest mount point of /proc/mounts that holds `path`.
    static func fileSystem(_ path: String) -> String {
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let mounts = (try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? ""
        var best = (length: -1, type: "unknown")
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count > 2 else { continue }
            let point = fields[1]
            let holds = real == point || point == "/" || real.hasPrefix(point + "/")
            if holds && point.count > best.length { best = (point.count, fields[2]) }
        }
        return best.type
    }
}

extension PeersBenchmark.Measurement {
    /// The run of a tool that is one process (a peer, or the floor): its peak is the largest and the sum.
    init(oneProcess result: Spawned.Result) {
        self.init(seconds: result.seconds, peakMax: result.peakRSS, peakSum: result.peakRSS, cpu: result.cpu,
                  launched: result.started)
    }
}
