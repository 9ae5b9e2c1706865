import ArgumentParser
import FarmJSON
import FarmOrigin
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `pieces`: one large file from a server that caps each connection (nginx's `limit_rate`), fetched by
/// farm over 1, 8 and 32 connections as pieces (SPEC §14) and by aria2c with `-x8 -s8 -k1M` and its
/// most, `-x16 -s16 -k1M`, each into the same file system. Rounds alternate the order; round 0 is a
/// warm-up. Every run's file is compared with the served one before it counts.
///
/// `--slow-connection`: the test origin serves it instead, every response at the rate, and every
/// response on the client's second connection at a tenth of it; the bytes on disk are sampled (their
/// allocated blocks: every tool writes them where they belong, holes between) to tell how long the
/// last 5 % took.
struct PiecesBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pieces",
        abstract: "Time one large file over many connections: farm's pieces against aria2c's splits.")

    @Option(help: "Where the corpus is generated (once) and served from.") var corpus: String
    @Option(help: "Directory to download into.") var dir = "/dev/shm"
    @Option(help: "MiB of the file.") var mib = 64
    @Option(help: "nginx's rate a connection, as its limit_rate takes it.") var rate = "2m"
    @Option(help: "Counted rounds (after one warm-up).") var rounds = 3
    @Option(help: "Tools, comma-separated: farm-N (N connections), aria2c-N (-xN -sN -k1M, N ≤ 16).")
    var tools = "farm-1,farm-8,farm-32,aria2c-8,aria2c-16"
    @Flag(help: "Serve from the test origin, one connection of each tool at a tenth of the rate.")
    var slowConnection = false

    /// One timed run: seconds, and the bytes on disk as sampled (seconds from the start, bytes).
    struct Run {
        var seconds: Double
        var samples: [(Double, Int)] = []

        /// The share of the time the last 5 % of the bytes took, from the samples: nil without them.
        func lastShare(of size: Int) -> Double? {
            guard let almost = samples.first(where: { $0.1 >= size * 95 / 100 })?.0 else { return nil }
            let whole = samples.first(where: { $0.1 >= size })?.0 ?? seconds
            return (whole - almost) / whole
        }
    }

    func run() throws {
        let root = URL(fileURLWithPath: corpus).standardizedFileURL.path
        let base = URL(fileURLWithPath: dir).standardizedFileURL.path + "/farm-pieces-\(getpid())"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let set = try Corpus.large(count: 1, mib: mib, root: root)
        let path = set.paths[0]
        let work = root + "/nginx-\(getpid())"
        let url: String
        var stop: () -> Void
        if slowConnection {
            let origin = Origin()
            try origin.start()
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "/" + path)))
            let perSecond = try Self.bytes(rate)
            origin.serve(path: "/big.jpg", bytes: bytes, contentType: "image/jpeg")
            origin.inject(.throttle(bytesPerSecond: perSecond), at: "/big.jpg")
            origin.inject(.throttleConnection(ordinal: 2, bytesPerSecond: perSecond / 10), at: "/big.jpg")
            url = origin.url(for: "/big.jpg")
            stop = { origin.stop() }
        } else {
            let nginx = try Nginx(root: root, directory: work, extra: "limit_rate \(rate);")
            url = nginx.url(path)
            stop = {
                nginx.stop()
                try? FileManager.default.removeItem(atPath: work)
            }
        }
        defer { stop() }
        try Data(JSON.encode([url])).write(to: URL(fileURLWithPath: base + "/big.json"))
        try (url + "\n").write(toFile: base + "/urls.txt", atomically: true, encoding: .utf8)
        let toolList = tools.split(separator: ",").map(String.init)
        print("\n## one file of \(mib) MiB from " + (slowConnection ? "the test origin" : "nginx")
            + " capped at \(rate) a connection" + (slowConnection ? ", its second connection at a tenth" : "")
            + ", into \(dir) (\(PeersBenchmark.fileSystem(dir))); \(rounds) rounds after a warm-up")
        var seconds: [String: [Double]] = [:]
        var lastShares: [String: [Double]] = [:]
        for round in 0...rounds {
            for tool in toolList.indices.map({ toolList[($0 + round) % toolList.count] }) {
                let run = base + "/\(tool)-\(round)"
                try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
                sync()
                let took = try measure(tool, url: url, base: base, run: run, served: root + "/" + path)
                try? FileManager.default.removeItem(atPath: run)
                guard round > 0 else { continue }
                seconds[tool, default: []].append(took.seconds)
                if let share = took.lastShare(of: set.bytes) { lastShares[tool, default: []].append(share) }
            }
        }
        print("tool        median s   min–max s      MB/s      last 5 % of the bytes (median share of the time)")
        for tool in toolList {
            guard let runs = seconds[tool]?.sorted(), !runs.isEmpty else { continue }
            print(tool.padded(12) + String(format: "%.2f", runs.median).padded(11)
                + String(format: "%.2f–%.2f", runs.first!, runs.last!).padded(15)
                + String(format: "%.1f", Double(set.bytes) / 1e6 / runs.median).padded(10)
                + (lastShares[tool].map { String(format: "%.0f %%", $0.median * 100) } ?? "-"))
        }
        // Paired within each round, then the median: farm's against each other tool.
        for farm in toolList where farm.hasPrefix("farm") {
            let ratios = toolList.filter { $0 != farm }.compactMap { other -> String? in
                guard let mine = seconds[farm], let theirs = seconds[other], mine.count == theirs.count else { return nil }
                return String(format: "%.2f× %@", zip(mine, theirs).map { $1 / $0 }.median, other)
            }
            print("\(farm) / other (speed): " + ratios.joined(separator: ", "))
        }
    }

    /// One download of the file, checked against the served bytes.
    private func measure(_ tool: String, url: String, base: String, run: String, served: String) throws -> Run {
        let log = run + ".log"
        defer { unlink(log) }
        guard let dash = tool.lastIndex(of: "-"), let connections = Int(tool[tool.index(after: dash)...]) else {
            throw ValidationError("unknown tool \(tool): use farm-N or aria2c-N")
        }
        let start = Clock.monotonic()
        var samples: [(Double, Int)] = []
        // Every file under `run` (a farm's partial, then its stored file; aria2c's output), by its blocks.
        let sample = { samples.append((Clock.monotonic() - start, Self.allocatedBytes(under: run))) }
        if tool.hasPrefix("farm") {
            let farm = Spawned.sibling("farm")
            let spool = run + "/spool"
            // A worker a connection up to 8, then more transfers a worker: 32 is 4 workers of 8.
            let workers = min(connections, 8)
            try Spawned.run(farm, ["add", base + "/big.json", "--spool", spool, "--connections", String(connections)],
                            log: log)
            defer { _ = try? Spawned.run(farm, ["stop", "--spool", spool], log: log, check: false) }
            try Spawned.run(farm, ["start", "--spool", spool, "--no-convert", "--workers", String(workers),
                                   "--transfers", String((connections + workers - 1) / workers)], log: log)
            try Spawned.run(farm, ["wait", "--timeout", "3600", "--spool", spool], log: log,
                            sample: slowConnection ? sample : nil)
            let seconds = Clock.monotonic() - start
            let stored = try Spool(root: spool, create: false)
                .outputBase(JobName(list: ListID.of(name: "big.json"), index: 0)) + ".jpg"
            try checkSame(stored, served, tool)
            return Run(seconds: seconds, samples: samples)
        } else if tool.hasPrefix("aria2c") {
            try Spawned.run("aria2c", ["--no-conf=true", "-q", "-x\(connections)", "-s\(connections)", "-k1M",
                                       "--file-allocation=none", "--allow-overwrite=true", "-d", run, "-o", "big.jpg",
                                       url], log: log, sample: slowConnection ? sample : nil)
            let seconds = Clock.monotonic() - start
            try checkSame(run + "/big.jpg", served, tool)
            return Run(seconds: seconds, samples: samples)
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
