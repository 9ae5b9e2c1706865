import ArgumentParser
import FarmJSON
import FarmOrigin
import FarmRegistry
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `pieces`: one large file from a server that caps each connection (nginx's `limit_rate`), fetched by
/// farm over 1, 8 and 32 connections as pieces (SPEC §14) and by aria2c with `-x8 -s8 -k1M` and its
/// most, `-x16 -s16 -k1M`, each into the same file system. Rounds alternate the order; round 0 is a
/// warm-up. Every run's file is compared with the served one before it counts.
///
/// Other `--mode`s serve it from the test origin instead, every response at the rate:
/// - `slow-connection`: every response on the client's second connection at a tenth of it; the bytes on
///   disk are sampled (their allocated blocks: every tool writes them where they belong, holes between)
///   to tell how long the last 5 % took;
/// - `kills`: every worker of the farm is killed (SIGKILL) as the bytes on disk pass a quarter, a half
///   and three quarters; the bytes the origin served say what the kills cost;
/// - `mirrors`: the tools ending in `-mirrors` get three URLs of the file, one answering 503 and one at
///   a tenth of the rate; the others the fast one alone;
/// - `cluster`: farm alone, on two hosts sharing a GlusterFS spool, one of them killed whole
///   (PiecesClusterBenchmark.swift).
struct PiecesBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pieces",
        abstract: "Time one large file over many connections: farm's pieces against aria2c's splits.")

    @OptionGroup var corpus: CorpusRoot
    @Option(help: "Directory to download into.") var dir = "/dev/shm"
    @Option(help: "MiB of the file.") var mib = 64
    @Option(help: "The rate a connection, as nginx's limit_rate takes it (2m, 500k).") var rate = "2m"
    @OptionGroup var rounds: Rounds
    @Option(help: ArgumentHelp("Tools, comma-separated: farm-N (N connections), aria2c-N (-xN -sN -k1M, N ≤ 16); "
        + "with --mode mirrors, either with -mirrors (three URLs)."))
    var tools = "farm-1,farm-8,farm-32,aria2c-8,aria2c-16"
    @Option(help: "nginx, slow-connection, kills, mirrors or cluster (see the discussion).") var mode = "nginx"

    static let modes = ["nginx", "slow-connection", "kills", "mirrors", "cluster"]

    /// One timed run: seconds, the bytes on disk as sampled (seconds from the start, bytes), and the bytes
    /// the test origin served for it.
    struct Run {
        var seconds: Double
        var samples: [(Double, Int)] = []
        var served = 0

        /// The share of the time the last 5 % of the bytes took, from the samples: nil without them.
        func lastShare(of size: Int) -> Double? {
            guard let almost = samples.first(where: { $0.1 >= size * 95 / 100 })?.0 else { return nil }
            let whole = samples.first(where: { $0.1 >= size })?.0 ?? seconds
            return (whole - almost) / whole
        }
    }

    /// Where the file is served: its URLs (the mirrors after the first), the served file, the test origin.
    struct Served {
        let urls: [String]
        let file: String
        let origin: Origin?
    }

    func run() throws {
        guard Self.modes.contains(mode) else { throw ValidationError("--mode is one of " + Self.modes.joined(separator: ", ")) }
        let root = try corpus.make()
        let base = URL(fileURLWithPath: dir).standardizedFileURL.path + "/farm-pieces-\(getpid())"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let set = try Corpus.large(count: 1, mib: mib, root: root)
        let file = root + "/" + set.paths[0]
        if mode == "cluster" { return try runOnCluster(file: file, size: set.bytes) }
        let served: Served
        var stop: () -> Void
        if mode == "nginx" {
            let work = root + "/nginx-\(getpid())"
            let nginx = try Nginx(root: root, directory: work, extra: "limit_rate \(rate);")
            served = Served(urls: [nginx.url(set.paths[0])], file: file, origin: nil)
            stop = {
                nginx.stop()
                try? FileManager.default.removeItem(atPath: work)
            }
        } else {
            let origin = Origin()
            try origin.start()
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            let perSecond = try Self.bytes(rate)
            for path in ["/big.jpg", "/failing.jpg", "/slow.jpg"] {
                origin.serve(path: path, bytes: bytes, contentType: "image/jpeg")
            }
            origin.inject(.throttle(bytesPerSecond: perSecond), at: "/big.jpg")
            if mode == "slow-connection" {
                origin.inject(.throttleConnection(ordinal: 2, bytesPerSecond: perSecond / 10), at: "/big.jpg")
            }
            origin.inject(.status(503), at: "/failing.jpg")
            origin.inject(.throttle(bytesPerSecond: perSecond / 10), at: "/slow.jpg")
            served = Served(urls: ["/big.jpg", "/failing.jpg", "/slow.jpg"].map { origin.url(for: $0) }, file: file,
                            origin: origin)
            stop = { origin.stop() }
        }
        defer { stop() }
        try Data(JSON.encode([served.urls[0]])).write(to: URL(fileURLWithPath: base + "/big.json"))
        try Data(JSON.encode([JSONValue.object([JSONMember("urls", .array(served.urls.map(JSONValue.string)))])]))
            .write(to: URL(fileURLWithPath: base + "/big-mirrors.json"))
        let toolList = tools.split(separator: ",").map(String.init)
        let modeText = ["slow-connection": ", its second connection at a tenth",
                        "kills": ", every worker killed at a quarter, a half and three quarters of the bytes",
                        "mirrors": "; -mirrors: two more mirrors, one answering 503, one at a tenth"][mode] ?? ""
        print("\n## one file of \(mib) MiB from " + (mode == "nginx" ? "nginx" : "the test origin")
            + " capped at \(rate) a connection" + modeText
            + ", into \(dir) (\(PeersBenchmark.fileSystem(dir))); \(rounds.count) rounds after a warm-up")
        var runs: [String: [Run]] = [:]
        try rounds.each(toolList, under: base) { tool, round, run in
            let took = try measure(tool, base: base, run: run, served: served)
            try? FileManager.default.removeItem(atPath: run)
            if round > 0 { runs[tool, default: []].append(took) }
        }
        print("tool              median s   min–max s      MB/s      last 5 % of the time   bytes served ÷ size (most)")
        for tool in toolList {
            guard let measured = runs[tool], !measured.isEmpty else { continue }
            let seconds = measured.map(\.seconds).sorted()
            let shares = measured.compactMap { $0.lastShare(of: set.bytes) }
            let served = measured.map { Double($0.served) / Double(set.bytes) }
            print(tool.padded(18) + String(format: "%.2f", seconds.median).padded(11)
                + String(format: "%.2f–%.2f", seconds.first!, seconds.last!).padded(15)
                + String(format: "%.1f", Double(set.bytes) / 1e6 / seconds.median).padded(10)
                + (shares.isEmpty ? "-" : String(format: "%.0f %%", shares.median * 100)).padded(23)
                + (served.max()! > 0 ? String(format: "%.3f×", served.max()!) : "-"))
        }
        // Paired within each round, then the median: farm's against each other tool.
        for farm in toolList where farm.hasPrefix("farm") {
            let ratios = toolList.filter { $0 != farm }.compactMap { other -> String? in
                guard let mine = runs[farm], let theirs = runs[other], mine.count == theirs.count else { return nil }
                return String(format: "%.2f× %@", zip(mine, theirs).map { $1.seconds / $0.seconds }.median, other)
            }
            print("\(farm) / other (speed): " + ratios.joined(separator: ", "))
        }
    }

    /// One download of the file by `tool`, checked against the served bytes.
    private func measure(_ tool: String, base: String, run: String, served: Served) throws -> Run {
        let log = run + ".log"
        defer { unlink(log) }
        let parts = tool.split(separator: "-")
        guard parts.count >= 2, let connections = Int(parts[1]), parts.count == 2 || parts[2] == "mirrors" else {
            throw ValidationError("unknown tool \(tool): use farm-N or aria2c-N, or either with -mirrors")
        }
        let mirrored = parts.count == 3
        let before = served.origin?.bytesServed ?? 0
        let start = Clock.monotonic()
        var samples: [(Double, Int)] = []
        var kills = 0
        // Every file under `run` (a farm's partial, then its stored file; aria2c's output), by its blocks;
        // in the kills mode, every worker killed as they pass each quarter.
        let sample = { [mode, mib] in
            let bytes = Self.allocatedBytes(under: run)
            samples.append((Clock.monotonic() - start, bytes))
            guard mode == "kills", kills < 3, bytes >= (mib << 20) * (kills + 1) / 4,
                  let spool = try? Spool(root: run + "/spool", create: false) else { return }
            kills += 1
            for process in spool.registry.processes() where process.role == .worker { kill(process.pid, SIGKILL) }
        }
        let sampling = mode == "slow-connection" || mode == "kills"
        if parts[0] == "farm" {
            let farm = Spawned.sibling("farm")
            let spool = run + "/spool"
            let list = mirrored ? "big-mirrors.json" : "big.json"
            // A worker a connection up to 8, then more transfers a worker: 32 is 4 workers of 8.
            let workers = min(connections, 8)
            try Spawned.run(farm, ["add", base + "/" + list, "--spool", spool, "--connections", String(connections)],
                            log: log)
            defer { _ = try? Spawned.run(farm, ["stop", "--spool", spool], log: log, check: false) }
            try Spawned.run(farm, ["start", "--spool", spool, "--no-convert", "--workers", String(workers),
                                   "--transfers", String((connections + workers - 1) / workers)], log: log)
            try Spawned.run(farm, ["wait", "--timeout", "3600", "--spool", spool], log: log,
                            sample: sampling ? sample : nil)
            let seconds = Clock.monotonic() - start
            let stored = try Spool(root: spool, create: false)
                .outputBase(JobName(list: ListID.of(name: list), index: 0)) + ".jpg"
            try checkSame(stored, served.file, tool)
            return Run(seconds: seconds, samples: samples, served: (served.origin?.bytesServed ?? 0) - before)
        } else if parts[0] == "aria2c" {
            // Several URIs of one file are aria2c's mirrors.
            try Spawned.run("aria2c", ["--no-conf=true", "-q", "-x\(connections)", "-s\(connections)", "-k1M",
                                       "--file-allocation=none", "--allow-overwrite=true", "-d", run, "-o", "big.jpg"]
                            + (mirrored ? served.urls : [served.urls[0]]), log: log, sample: sampling ? sample : nil)
            let seconds = Clock.monotonic() - start
            try checkSame(run + "/big.jpg", served.file, tool)
            return Run(seconds: seconds, samples: samples, served: (served.origin?.bytesServed ?? 0) - before)
        }
        throw ValidationError("unknown tool \(tool): use farm-N or aria2c-N")
    }

    /// nginx's size: a number, with k or m for 1024 or 1024².
    static func bytes(_ text: String) throws -> Int {
        let scale = ["k": 1024, "m": 1024 * 1024][text.suffix(1).lowercased()] ?? 1
        guard let number = Int(scale == 1 ? text : String(text.dropLast())) else {
            throw ValidationError("--rate \(text) is not a size such as 2m or 500k")
        }
        return number * scale
    }

    /// The bytes allocated to the regular files under `path` (holes not counted).
    static func allocatedBytes(under path: String) -> Int {
        var total = 0
        guard let walker = FileManager.default.enumerator(atPath: path) else { return 0 }
        while let name = walker.nextObject() as? String {
            var st = stat()
            if lstat(path + "/" + name, &st) == 0, st.st_mode & S_IFMT == S_IFREG { total += Int(st.st_blocks) * 512 }
        }
        return total
    }

    private func checkSame(_ path: String, _ served: String, _ tool: String) throws {
        guard FileManager.default.contentsEqual(atPath: path, andPath: served) else {
            throw ValidationError("\(tool) wrote other bytes than the origin's in \(path)")
        }
    }
}
