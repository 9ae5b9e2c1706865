import ArgumentParser
import FarmRegistry
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `mirror`: issue 64's goals (SPEC §18). A generated site (`MirrorSite`, about `--pages` pages in 4 levels
/// below an index) served by nginx on 127.0.0.1 with `--delay` added to every response, mirrored from its
/// index to `--level` by `wget -r -l N -p`, by wget2 at `--parallel` threads and by farm at `--parallel`
/// workers (`farm add URL --recursive --level N`, `farm start`, `farm wait`, timed together as the peers
/// section times a farm), each in a fresh directory and spool, rounds rotating the order after a warm-up.
/// Which URLs each asked for comes from nginx's access log: each run's set is checked against the set the
/// site's shape says `wget -r -l N -p` fetches, and farm's against wget's of the same round, each URL once.
///
/// wget2 1.99's `-p` with `-r` follows no link of the start page ("not followed (page requisites + level)"),
/// so wget2 runs without it, one level deeper (the images of the last pages are that deep), with the pages
/// of that deeper level rejected before they are asked for (`--filter-urls --reject-regex`): the same set.
/// `farm-killed` is issue 64's first goal: farm as above with `--out`, two of its workers killed (SIGKILL) once
/// nginx has answered half the set; what it delivered must be, file for file and byte for byte, what wget saved
/// in the same round (robots.txt aside: wget keeps it, farm reads it and delivers nothing of it), and both the
/// site's own bytes. A URL in flight at a kill may be asked again: this run is not held to "each once".
/// `--growth` runs farm alone on a large site instead (MirrorGrowth.swift).
struct MirrorBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mirror",
        abstract: "Time farm add --recursive against wget -r -p and wget2 -r on a generated site from nginx.")

    @OptionGroup var corpus: CorpusRoot
    @OptionGroup var workspace: Workspace
    @Option(help: "Pages of the generated site (4 levels below its index).") var pages = 400
    @Option(help: "How many links deep the mirrors go (wget's -l).") var level = 3
    @OptionGroup var rounds: Rounds
    @Option(help: "Seconds nginx waits before every response (its echo module), e.g. 0.02; 0 for none.")
    var delay = 0.02
    @Option(help: "farm's workers and wget2's threads.") var parallel = 6
    @Option(help: "The tools, comma-separated: wget, wget2, farm, farm-killed (farm, 2 workers killed midway).")
    var tools = "wget,wget2,farm,farm-killed"
    @Option(help: ArgumentHelp("The farm executable (default: the farm beside this one).", valueName: "path"))
    var farm: String?
    @Flag(help: ArgumentHelp("Instead of the comparison, farm alone, once, with its processes' memory and `farm status` "
        + "sampled as the list grows (the 100,000-page goal: e.g. --pages 100000 --level 4 --delay 0)."))
    var growth = false
    @Option(help: "Seconds between two samples of --growth.") var sample = 1.0
    @Option(help: "Seconds after which --growth stops the farm, finished or not.") var limit = 1800.0

    struct Measurement {
        var seconds: Double
        /// Largest single process, and the sum of the processes running together (a farm's roles).
        var peakMax: Int
        var peakSum: Int
        /// A farm's `add`, `start` and `wait`, apart.
        var phases: [Double] = []
        /// What nginx was asked during the run, and its connections and their timing.
        var requests = RequestLog(text: "")
        var connections = ConnectionLog(text: "")
        /// When the tool (a farm's `add`) was started, Unix seconds.
        var launched = 0.0
        /// The files it saved (wget's, wget2's) or delivered (farm-killed's), by path from its host's folder,
        /// and those whose bytes are not the site's; nil for a run that keeps its files elsewhere (farm's spool).
        var saved: Set<String>?
        var altered: [String] = []
        /// Workers killed during the run.
        var killed = 0
    }

    func validate() throws {
        guard (1...MirrorSite.levels).contains(level) else {
            throw ValidationError("--level must be 1 to \(MirrorSite.levels): the site has \(MirrorSite.levels) levels")
        }
        let unknown = toolList.filter { !Self.knownTools.contains($0) }
        guard unknown.isEmpty else {
            throw ValidationError("unknown tool \(unknown.joined(separator: ", ")): use \(Self.knownTools.joined(separator: ", "))")
        }
    }

    private var toolList: [String] { tools.split(separator: ",").map(String.init) }
    static let knownTools = ["wget", "wget2", "farm", "farm-killed"]
    /// Workers `farm-killed` kills, once nginx answered half the set.
    static let kills = 2

    func run() throws {
        let corpus = try self.corpus.make()
        let site = try MirrorSite.make(pages: pages, root: corpus)
        let base = try workspace.make("mirror")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let requests = base + "/requests.log"
        // The types crawlers read links from by their Content-Type (a server-level `types` replaces the
        // server's own, which knows only the peers' kinds); every request logged with its path, and with its
        // connection and timing.
        let nginx = try Nginx(root: site.directory, directory: base + "/nginx",
                              extra: "types { text/html html; text/css css; image/jpeg jpg; image/png png; text/plain txt; }\n"
                                + (delay > 0 ? PeersBenchmark.delayed(delay) : ""),
                              modules: delay > 0 ? [try PeersBenchmark.echoModule()] : [],
                              countConnections: true, requestLog: requests)
        defer { nginx.stop() }
        let start = nginx.url(MirrorSite.start)
        if growth { return try self.growth(site: site, start: start, base: base, requests: requests) }
        let expected = site.fetched(level: level)
        print("site: \(site.pages.count) pages (\(site.fanouts.map(String.init).joined(separator: "×")) below the index), "
            + "\(site.corpus.paths.count) files, \(String(format: "%.1f", Double(site.corpus.bytes) / 1e6)) MB; level "
            + "\(level): \(expected.count) URLs (robots.txt, \(site.pages.filter { $0.count <= level }.count) pages, "
            + "their images, the stylesheet and its image); "
            + (delay > 0 ? String(format: "%.0f ms added to every response; ", delay * 1000) : "")
            + "\(rounds.count) rounds after a warm-up; written to \(workspace.dir) (\(PeersBenchmark.fileSystem(workspace.dir)))")
        let tools = toolList
        for tool in tools { print("\(Self.label(tool, level: level, parallel: parallel)):  \(command(tool, start: start, run: "DIR", spool: "SPOOL", site: site))") }
        var results: [String: [Measurement]] = [:]
        var wrong: [String] = []
        try rounds.each(tools, under: base) { tool, round, run in
            truncate(requests, 0)
            _ = nginx.connections()
            var measured = try measure(tool, start: start, run: run, site: site, requests: requests,
                                       expected: expected.count)
            measured.requests = RequestLog.settled(requests)
            measured.connections = nginx.connections()
            if tool != "farm" {
                (measured.saved, measured.altered) = Self.saved(under: tool == "farm-killed" ? run + "/out" : run, site: site)
            }
            try? FileManager.default.removeItem(atPath: run)
            wrong += check(measured.requests, tool: tool, round: round, expected: expected, site: site)
            if !measured.altered.isEmpty {
                wrong.append("\(tool) round \(round): \(measured.altered.count) file(s) not the site's bytes "
                    + "(\(measured.altered.prefix(3)))")
            }
            if tool == "farm-killed" && measured.killed < Self.kills {
                wrong.append("farm-killed round \(round): \(measured.killed) worker(s) killed, not \(Self.kills)")
            }
            if round > 0 { results[tool, default: []].append(measured) }
        } ended: { round in
            // farm's set against wget's of the same round, URL for URL.
            if let farm = results["farm"]?.last, let wget = results["wget"]?.last, round > 0,
               farm.requests.paths != wget.requests.paths {
                wrong.append("round \(round): farm and wget fetched different sets")
            }
            // farm-killed's delivered files against wget's saved ones, robots.txt aside (see the type's comment).
            if let killed = results["farm-killed"]?.last?.saved, let wget = results["wget"]?.last?.saved, round > 0,
               killed != wget.subtracting(["/robots.txt"]) {
                let missing = wget.subtracting(["/robots.txt"]).subtracting(killed), extra = killed.subtracting(wget)
                wrong.append("round \(round): farm-killed delivered \(killed.count) files, wget saved \(wget.count): "
                    + "\(missing.count) missing (\(missing.sorted().prefix(3))), \(extra.count) beyond (\(extra.sorted().prefix(3)))")
            }
        }
        print("tool                                   median s   min–max s      URLs   each once   same set as wget -r -l \(level) -p   peak RSS largest / sum")
        for tool in tools {
            guard let runs = results[tool], !runs.isEmpty else { continue }
            let seconds = runs.map(\.seconds).sorted()
            let sets = runs.map(\.requests.paths)
            let once = runs.allSatisfy { $0.requests.answers.values.allSatisfy { $0.count == 1 } }
            let files = runs.allSatisfy { $0.saved == nil } ? ""
                : "; files saved: \(runs.compactMap { $0.saved?.count }.max()!), "
                    + (runs.allSatisfy { $0.altered.isEmpty } ? "every byte the site's" : "NOT the site's bytes")
                    + (tool == "farm-killed" ? ", \(runs.map(\.killed).min()!) workers killed midway" : "")
            print(Self.label(tool, level: level, parallel: parallel).padded(39) + String(format: "%.2f", seconds.median).padded(11)
                + String(format: "%.2f–%.2f", seconds.first!, seconds.last!).padded(15)
                + String(sets.map(\.count).max()!).padded(7) + (once ? "yes" : "no").padded(12)
                + (sets.allSatisfy { $0 == expected } ? "yes (every round)" : "NO").padded(34)
                + String(format: "%.0f / %.0f MB", Double(runs.map(\.peakMax).max()!) / 1e6,
                         Double(runs.map(\.peakSum).max()!) / 1e6) + files)
        }
        // Where the time goes: the mirror's critical path is a request a level, the rest fills the transfers.
        // Every tool asks robots.txt first, then the start page: the second request.
        print("tool                                   connections   first request at   start page at   in flight (mean)   "
            + "last response to exit   idle between requests on a connection: mean / p90")
        for tool in tools {
            guard let runs = results[tool], !runs.isEmpty else { continue }
            let logs = runs.map(\.connections)
            let gaps = logs.flatMap(\.gaps)
            print(Self.label(tool, level: level, parallel: parallel).padded(39)
                + String(format: "%.0f", logs.map { Double($0.connections) }.median).padded(14)
                + String(format: "%.3f s", runs.map { $0.connections.firstStart - $0.launched }.median).padded(19)
                + String(format: "%.3f s", runs.map { $0.connections.secondStart - $0.launched }.median).padded(16)
                + String(format: "%.1f", logs.map(\.inFlight).median).padded(19)
                + String(format: "%.3f s", runs.map { $0.launched + $0.seconds - $0.connections.lastEnd }.median).padded(24)
                + (gaps.isEmpty ? "-" : String(format: "%.1f / %.1f ms", gaps.reduce(0, +) / Double(gaps.count) * 1000,
                                               gaps.quantile(0.9) * 1000)))
        }
        if let runs = results["farm"], let first = runs.first, !first.phases.isEmpty {
            let medians = first.phases.indices.map { phase in runs.map { $0.phases[phase] }.median }
            print("farm phases (median s): " + zip(["add", "start", "wait"], medians)
                .map { String(format: "%@ %.3f", $0, $1) }.joined(separator: ", "))
        }
        // Ratios of throughput, paired within each round (same machine state), then the median.
        for (peer, goal) in [("wget", 4.0), ("wget2", 1.0)] {
            guard let mine = results["farm"], let theirs = results[peer], mine.count == theirs.count else { continue }
            let ratio = zip(mine, theirs).map { $1.seconds / $0.seconds }.median
            print(String(format: "farm / %@ (throughput, paired by round): %.2f× (goal ≥ %.1f×: %@)", peer, ratio, goal,
                         ratio >= goal ? "met" : "NOT met"))
        }
        for line in wrong { print("WRONG: " + line) }
        if !wrong.isEmpty { throw ExitCode(1) }
    }

    /// The command line of `tool` (with the run's directory and spool), as it is run.
    private func command(_ tool: String, start: String, run: String, spool: String, site: MirrorSite) -> String {
        switch tool {
        case "wget": return "wget " + wgetArguments(start: start, run: run).joined(separator: " ")
        case "wget2": return "wget2 " + wget2Arguments(start: start, run: run).map { $0.contains("[") ? "'\($0)'" : $0 }
            .joined(separator: " ")
        default:
            return ["farm add \(start) --recursive --level \(level)" + (tool == "farm-killed" ? " --out \(run)/out" : "")
                        + " --spool \(spool)",
                    "farm start --workers \(parallel) --no-convert --spool \(spool)",
                    "farm wait --spool \(spool)"].joined(separator: "; ")
                + (tool == "farm-killed" ? " (\(Self.kills) workers killed once half the set is answered)" : "")
        }
    }

    private func wgetArguments(start: String, run: String) -> [String] {
        ["--no-config", "-r", "-l", String(level), "-p", "-nv", "-P", run, start]
    }

    /// See the type's comment: no `-p`, one level deeper, that level's pages never asked for.
    private func wget2Arguments(start: String, run: String) -> [String] {
        ["--no-config", "-r", "-l", String(level + 1), "--filter-urls", "--reject-regex",
         MirrorSite.pages(atDepth: level + 1), "--max-threads", String(parallel), "-q", "-P", run, start]
    }

    private func measure(_ tool: String, start: String, run: String, site: MirrorSite, requests: String,
                         expected: Int) throws -> Measurement {
        let log = run + ".log"
        defer { unlink(log) }
        switch tool {
        case "wget", "wget2":
            let result = try Spawned.run(tool, tool == "wget" ? wgetArguments(start: start, run: run)
                                         : wget2Arguments(start: start, run: run), log: log)
            return Measurement(seconds: result.seconds, peakMax: result.peakRSS, peakSum: result.peakRSS,
                               launched: result.started)
        case "farm-killed":
            return try measureFarm(start: start, run: run, log: log, site: site,
                                   killing: (requests: requests, after: expected / 2))
        default:
            return try measureFarm(start: start, run: run, log: log, site: site)
        }
    }

    /// add + start + wait, timed as one; the roles' peak RSS read before `farm stop` (VmHWM is a peak).
    /// `killing`: delivered to `<run>/out`, and `kills` workers killed (SIGKILL) once nginx's log at `requests`
    /// has `after` lines; their peaks are lost with them.
    private func measureFarm(start: String, run: String, log: String, site: MirrorSite,
                             killing: (requests: String, after: Int)? = nil) throws -> Measurement {
        let farm = self.farm ?? Spawned.sibling("farm")
        let spool = run + "/spool"
        let out = killing == nil ? [] : ["--out", run + "/out"]
        let began = Clock.monotonic()
        let add = try Spawned.run(farm, ["add", start, "--recursive", "--level", String(level), "--spool", spool] + out,
                                  log: log)
        defer { _ = try? Spawned.run(farm, ["stop", "--spool", spool], log: log, check: false) }
        let started = try Spawned.run(farm, ["start", "--workers", String(parallel), "--no-convert", "--spool", spool],
                                      log: log)
        let opened = try Spool(root: spool, create: false)
        var killed = 0
        let killMidway = { () -> Void in
            guard let killing, killed == 0, Self.lines(killing.requests) >= killing.after else { return }
            for worker in opened.registry.processes().filter({ $0.role == .worker }).prefix(Self.kills) {
                if Glibc.kill(worker.pid, SIGKILL) == 0 { killed += 1 }
            }
        }
        let waited = try Spawned.run(farm, ["wait", "--timeout", "3600", "--spool", spool], log: log,
                                     sample: killing == nil ? nil : killMidway)
        let seconds = Clock.monotonic() - began
        let peaks = opened.registry.processes().map { Spawned.peakRSS(of: $0.pid) }
        // robots.txt is fetched by the worker of the first job, not as a job of the list.
        let jobs = site.fetched(level: level).count - 1
        let done = opened.inventory().filter { $0.state == .done }.count
        guard done == jobs else {
            throw ValidationError("farm finished \(done) of \(jobs) jobs; see \(spool)/log/farm.log")
        }
        return Measurement(seconds: seconds, peakMax: max(add.peakRSS, peaks.max() ?? 0), peakSum: peaks.reduce(0, +),
                           phases: [add.seconds, started.seconds, waited.seconds], launched: add.started, killed: killed)
    }

    /// Lines in the file at `path` (nginx's log: one a request answered).
    private static func lines(_ path: String) -> Int {
        ((try? FileSystem.readFile(path, limit: 16 << 20)) ?? []).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    /// The files under `directory`'s one host folder (wget's layout: `host:port/path`), by path with a leading
    /// "/", and those of them whose bytes are not the site's file of that path.
    static func saved(under directory: String, site: MirrorSite) -> (Set<String>, [String]) {
        let hosts = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix("127.0.0.1") }
        guard hosts.count == 1, let walker = FileManager.default.enumerator(atPath: directory + "/" + hosts[0]) else {
            return ([], ["\(hosts.count) host folders in \(directory)"])
        }
        var files = Set<String>(), altered: [String] = []
        while let name = walker.nextObject() as? String {
            let path = directory + "/" + hosts[0] + "/" + name
            guard (try? FileSystem.lstat(path))?.isRegularFile == true else { continue }
            files.insert("/" + name)
            let mine = try? FileSystem.readFile(path, limit: 1 << 30)
            if mine == nil || mine != (try? FileSystem.readFile(site.directory + "/" + name, limit: 1 << 30)) {
                altered.append("/" + name)
            }
        }
        return (files, altered.sorted())
    }

    /// What was wrong with a run's requests: a URL outside the expected set or missing from it, one asked
    /// twice (farm: each URL once), or an answer that was not the whole file.
    private func check(_ requests: RequestLog, tool: String, round: Int, expected: Set<String>,
                       site: MirrorSite) -> [String] {
        var wrong: [String] = []
        let extra = requests.paths.subtracting(expected), missing = expected.subtracting(requests.paths)
        if !extra.isEmpty || !missing.isEmpty {
            wrong.append("\(tool) round \(round): \(missing.count) URL(s) not asked (\(missing.sorted().prefix(3))), "
                + "\(extra.count) asked beyond the set (\(extra.sorted().prefix(3)))")
        }
        let twice = requests.answers.filter { $0.value.count > 1 }.keys.sorted()
        if tool == "farm" && !twice.isEmpty {
            wrong.append("farm round \(round): \(twice.count) URL(s) asked more than once (\(twice.prefix(3)))")
        }
        let cut = requests.answers.filter { path, answer in
            let size = (try? FileSystem.stat(site.directory + path).size).map(Int.init) ?? -1
            return answer.status != 200 || answer.bytes != size
        }.keys.sorted()
        if !cut.isEmpty { wrong.append("\(tool) round \(round): \(cut.count) answer(s) not 200 with the whole file (\(cut.prefix(3)))") }
        return wrong
    }

    static func label(_ tool: String, level: Int, parallel: Int) -> String {
        switch tool {
        case "wget": return "wget -r -l \(level) -p"
        case "wget2": return "wget2 -r, \(parallel) threads"
        case "farm-killed": return "farm, \(parallel) workers, \(kills) killed"
        default: return "farm --recursive, \(parallel) workers"
        }
    }
}
