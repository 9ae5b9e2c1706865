import ArgumentParser
import FarmConvert
import FarmJSON
import FarmOrigin
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// `worker --files N --size B`: the throughput of ONE `farm work` process on N small files from a local
/// origin, against `curl` fetching the same URLs in one process, and (under strace, in further runs) the
/// files, renames and flushes each job costs, and every system call a job costs with conversions off
/// (SPEC §13's figure: `strace -f -c` over the whole run, divided by the jobs). The origin runs in this process; `farm` is the binary next
/// to this one, so build both in one configuration.
struct WorkerBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Measure one worker's jobs/s on small files from 127.0.0.1, against curl on the same URLs.")

    @Option(help: "Files to fetch.") var files = 2000
    @Option(help: "Bytes per file.") var size = 16384
    @OptionGroup var workspace: Workspace
    @Flag(help: "Skip the second run under strace.") var noStrace = false

    func run() throws {
        let base = try workspace.make("worker")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let origin = Origin()
        let (paths, side) = try BenchmarkJPEG.serve(files, size: size, under: "/f", by: origin, scratch: base)
        try origin.start()
        defer { origin.stop() }
        let urls = paths.map { origin.url(for: $0) }

        let manifest = base + "/bench.json"
        try Data(JSON.encode(urls)).write(to: URL(fileURLWithPath: manifest))
        let farm = Spawned.sibling("farm")
        print("\(files) JPEGs (\(side)×\(side) noise) of \(size) bytes from \(origin.url(for: "/"))"
            + ", spools in \(base)")

        let spool = base + "/spool"
        let add = try Child.run(farm, ["add", manifest, "--spool", spool])
        report("farm add", count: files, add, unit: "jobs")
        origin.clearRequests()
        let work = try Child.run(farm, ["work", "--exit-when-idle", "--spool", spool])
        let done = try Spool(root: spool, create: false).inventory().filter { $0.state == .done }.count
        guard done == files, origin.requests.count == files else {
            throw ValidationError("only \(done) of \(files) jobs done (\(origin.requests.count) requests)")
        }
        report("farm work (1 worker)", count: files, work, unit: "jobs")
        // Anything logged means some job took a path that is not the normal one: say so, it skews the numbers.
        let logged = (try? String(contentsOfFile: spool + "/log/farm.log", encoding: .utf8))?.split(separator: "\n")
        if let logged, !logged.isEmpty { print("  \(logged.count) line(s) in log/farm.log, e.g. \(logged[0])") }

        let nullConfig = base + "/curl-null.cfg", filesConfig = base + "/curl-files.cfg"
        try curlConfig(urls) { _ in "/dev/null" }.write(toFile: nullConfig, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: base + "/curl", withIntermediateDirectories: true)
        try curlConfig(urls) { "\(base)/curl/\($0).jpg" }.write(toFile: filesConfig, atomically: true, encoding: .utf8)
        let curlNull = try Child.run("/usr/bin/env", ["curl", "-sS", "--fail", "-K", nullConfig])
        report("curl -K, to /dev/null", count: files, curlNull, unit: "req")
        let curlFiles = try Child.run("/usr/bin/env", ["curl", "-sS", "--fail", "-K", filesConfig])
        report("curl -K, to files", count: files, curlFiles, unit: "req")
        print(String(format: "farm work / curl: %.2f (to /dev/null), %.2f (to files)",
                     curlNull.seconds / work.seconds, curlFiles.seconds / work.seconds))

        guard !noStrace else { return }
        guard (try? Child.run("/usr/bin/env", ["strace", "-V"]))?.status == 0 else {
            print("strace not installed: no per-job system call counts")
            return
        }
        let traced = base + "/spool-traced", trace = base + "/worker.strace"
        _ = try Child.run(farm, ["add", manifest, "--spool", traced])
        _ = try Child.run("/usr/bin/env", ["strace", "-f", "-qq", "-z", "-o", trace,
                                           "-e", "trace=" + SyscallCounts.traced,
                                           farm, "work", "--exit-when-idle", "--spool", traced])
        print(try SyscallCounts(trace: trace).perJob(files))

        let counted = base + "/spool-counted", summary = base + "/worker.strace-c"
        _ = try Child.run(farm, ["add", manifest, "--spool", counted])
        _ = try Child.run("/usr/bin/env", ["strace", "-f", "-c", "-o", summary,
                                           farm, "work", "--exit-when-idle", "--no-convert", "--spool", counted])
        let calls = try SyscallCounts.calls(summary: summary)
        let total = calls["total", default: 0]
        print(String(format: "system calls a job, download only (strace -f -c, all threads): %.1f (%d for %d jobs)",
                     Double(total) / Double(files), total, files))
        let top = calls.filter { $0.key != "total" }.sorted { $0.value > $1.value }.prefix(12)
        print("  the most: " + top.map { String(format: "%@ %.2f", $0.key, Double($0.value) / Double(files)) }
            .joined(separator: ", "))
    }

    private func report(_ label: String, count: Int, _ result: Child.Result, unit: String) {
        let rate = Double(count) / result.seconds
        print(label.padding(toLength: 24, withPad: " ", startingAt: 0)
            + String(format: "%6d %@ in %6.2f s = %7.1f %@/s, CPU %.3f ms/%@ (user+sys)",
                     count, unit, result.seconds, rate, unit, result.cpu * 1000 / Double(count),
                     String(unit.dropLast(unit == "jobs" ? 1 : 0))))
    }

    /// One `url =` / `output =` pair per URL: curl fetches them in order over one kept-alive connection.
    private func curlConfig(_ urls: [String], output: (Int) -> String) -> String {
        urls.enumerated().map { "url = \"\($1)\"\noutput = \"\(output($0))\"\n" }.joined()
    }
}

/// A child process run to completion: its wall time and CPU time (from RUSAGE_CHILDREN, so children run
/// one at a time). Fails on a non-zero exit, with the child's stderr.
enum Child {
    struct Result {
        var status: Int32
        var seconds: Double
        var cpu: Double
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let cpuBefore = childrenCPU()
        let start = Clock.monotonic()
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Clock.monotonic() - start
        let result = Result(status: process.terminationStatus, seconds: seconds, cpu: childrenCPU() - cpuBefore)
        guard result.status == 0 else {
            throw ValidationError("\(([executable] + arguments.prefix(3)).joined(separator: " ")) exited "
                + "\(result.status): \(String(decoding: stderr, as: UTF8.self))")
        }
        return result
    }

    private static func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// What a worker asked of the file system, counted from an `strace -f -z -o` trace (successful calls only).
struct SyscallCounts {
    static let traced = "openat,rename,renameat,renameat2,mkdir,mkdirat,unlink,unlinkat,"
        + "fsync,fdatasync,syncfs,utimensat"

    private var counts: [String: Int] = [:]
    /// openat with O_CREAT: a file made (or, rarely, an existing one opened to be rewritten).
    private var created = 0

    init(trace path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n") {
            // "<pid> name(args) = result", or the first half of a call another thread interrupted.
            guard let open = line.firstIndex(of: "("), !line.contains("resumed>") else { continue }
            let name = String(line[..<open].split(separator: " ").last ?? "")
            counts[name, default: 0] += 1
            if name == "openat" && line.contains("O_CREAT") { created += 1 }
        }
    }

    /// The calls of each system call of an `strace -c` summary, and of them all (`"total"`), errors
    /// included: a call is a call.
    static func calls(summary path: String) throws -> [String: Int] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var calls: [String: Int] = [:]
        // "  37.84    0.012345           6      2000       12 openat": the fourth number is the calls, the
        // name comes last (the errors column is empty when there were none).
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 5, Double(fields[0]) != nil, let count = Int(fields[3]) else { continue }
            calls[String(fields.last!)] = count
        }
        guard calls["total"] != nil else { throw ValidationError("no total in \(path)") }
        return calls
    }

    func perJob(_ jobs: Int) -> String {
        func per(_ names: String...) -> String {
            String(format: "%.2f", Double(names.reduce(0) { $0 + counts[$1, default: 0] }) / Double(jobs))
        }
        let made = String(format: "%.2f", Double(created) / Double(jobs))
        return "per job (strace, successful calls): files created \(made)"
            + ", openat \(per("openat")), renames \(per("rename", "renameat", "renameat2"))"
            + ", fsync+fdatasync \(per("fsync", "fdatasync")), syncfs \(per("syncfs"))"
            + ", mkdir \(per("mkdir", "mkdirat")), unlink \(per("unlink", "unlinkat")), utimensat \(per("utimensat"))"
    }
}

/// A real JPEG of exactly the size asked for, so the worker does all it does for a photo (its thumbnail
/// too): noise encoded at the largest square that fits, then padded with comment (COM) segments after SOI.
enum BenchmarkJPEG {
    /// Has `origin` serve `count` JPEGs of `size` bytes at `<prefix>/<n>.jpg`, one image whose comment
    /// holds `n`, so that every file's bytes are its own (as a list's usually are: equal bytes would take
    /// download once's rarer path, giving way to the first); returns their paths and the image's side.
    static func serve(_ count: Int, size: Int, under prefix: String, by origin: Origin, scratch: String) throws
        -> (paths: [String], side: Int) {
        let (body, side) = try make(size: size, scratch: scratch + "/sample.jpg")
        let paths = (0..<count).map { "\(prefix)/\($0).jpg" }
        let commentAt = 6, hasComment = body[2] == 0xFF && body[3] == 0xFE && Int(body[4]) << 8 | Int(body[5]) >= 10
        for (n, path) in paths.enumerated() {
            var bytes = body
            if hasComment {
                for i in 0..<8 { bytes[commentAt + i] = UInt8(truncatingIfNeeded: n >> (8 * i)) }
            }
            origin.serve(path: path, bytes: bytes, contentType: "image/jpeg")
        }
        return (paths, side)
    }

    /// The bytes, and the side of the square image they hold.
    static func make(size: Int, scratch: String) throws -> (bytes: [UInt8], side: Int) {
        for side in stride(from: 512, through: 8, by: -8) {
            var seed: UInt32 = 12345
            let pixels = (0..<side * side * 3).map { _ -> UInt8 in
                seed = seed &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: seed >> 24)
            }
            try JPEGEncoder.write(pixels, width: side, height: side, layout: .rgb, quality: 80, to: scratch)
            let encoded = Array(try Data(contentsOf: URL(fileURLWithPath: scratch)))
            let left = size - encoded.count
            guard left == 0 || left >= 4 else { continue }
            return ([0xFF, 0xD8] + padding(left) + encoded.dropFirst(2), side)
        }
        throw ValidationError("--size \(size) is too small for a JPEG")
    }

    /// Comment segments of `count` bytes in all (0, or at least 4: a segment's marker and length).
    private static func padding(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var left = count
        while left > 0 {
            var segment = min(left, 2 + 65535)
            if (1..<4).contains(left - segment) { segment = left - 4 }  // room for one whole segment more
            let length = segment - 2
            bytes += [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)]
            bytes += [UInt8](repeating: 0x20, count: length - 2)
            left -= segment
        }
        return bytes
    }
}
