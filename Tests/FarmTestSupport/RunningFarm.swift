import FarmDedup
import FarmJSON
import FarmOrigin
import FarmRegistry
import FarmSpool
import FarmSystem
import Foundation
import Glibc

/// A farm run by a test: a real origin on 127.0.0.1, a spool in a temporary directory, and the real
/// `farm` command. The supervisor is detached, so it is not our child: on the way out we stop the
/// farm, then kill by pid whatever is still registered in procs/ (pids we caused to exist).
public final class RunningFarm {
    public let origin = Origin()
    public let dir = TemporaryDirectory()
    public let spool: Spool
    /// Added to the environment of every `farm` this runs (and so of the farm it starts).
    public let environment: [String: String]
    public private(set) var bodies: [String: [UInt8]] = [:]
    /// Every pid ever seen registered: all of them are ours to end.
    private var seen: Set<pid_t> = []
    private var shutDown = false

    /// `spoolRoot`: where the spool goes (on a file system the test mounted, say); by default in `dir`.
    public init(spoolRoot: String? = nil, environment: [String: String] = [:]) throws {
        self.environment = environment
        try origin.start()
        spool = try Spool(root: spoolRoot ?? dir.appending("spool"))
    }

    deinit { shutDownNow() }

    /// Stops the farm, kills by pid whatever is still registered, waits (a few seconds at most) until
    /// those processes are gone, and stops the origin; once. For a test that must unmount the spool's
    /// file system after, which its processes would keep busy; otherwise the release of the value does it.
    public func shutDownNow() {
        guard !shutDown else { return }
        shutDown = true
        _ = try? farm(["stop"], timeout: 60)
        let pids = seen.union(spool.registry.processes().map(\.pid))
        for pid in pids { kill(pid, SIGKILL) }
        poll(timeout: 10) { pids.allSatisfy(isGone) }
        origin.stop()
    }

    /// Runs `farm <arguments> --spool <spool>`, with `input` as its standard input when given.
    @discardableResult
    public func farm(_ arguments: [String], timeout: Double = 120, input: [UInt8]? = nil) throws
        -> (status: Int32, output: String, error: String) {
        try run("farm", arguments + ["--spool", spool.root], environment: environment, timeout: timeout, input: input)
    }

    /// Runs `farm <arguments> --spool <spool>` with the file mode creation mask `umask`, set by a shell as a
    /// user's is.
    @discardableResult
    public func farm(umask: UInt32, _ arguments: [String], timeout: Double = 120) throws
        -> (status: Int32, output: String, error: String) {
        try run("/bin/sh", ["-c", "umask \(String(umask, radix: 8)) && exec \"$0\" \"$@\"", Executables.path("farm")]
                + arguments + ["--spool", spool.root], environment: environment, timeout: timeout)
    }

    /// Runs `farm <arguments>`, throwing (which fails the test) unless it succeeds.
    @discardableResult
    public func must(_ arguments: [String]) throws -> String {
        let result = try farm(arguments)
        guard result.status == 0 else {
            throw CommandFailed("farm \(arguments.joined(separator: " ")): \(result.error)")
        }
        return result.output
    }

    /// Serves `count` resources of `size` bytes under /<list>/<n>.png, throttled to `rate` B/s each, and
    /// adds them as one JSON list named `<list>.json`. Returns the URL paths in index order.
    @discardableResult
    public func addList(_ list: String, count: Int, size: Int, rate: Int? = nil) throws -> [String] {
        let files = (0..<count).map { n -> (path: String, body: [UInt8]) in
            // PNG magic, then bytes that differ per resource, so a mix-up shows.
            let body: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
                + (0..<size - 8).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n &* 7 &+ list.utf8.count) }
            return ("/\(list)/\(n).png", body)
        }
        return try addList(list, serving: files, rate: rate)
    }

    /// Serves `files` (URL path and body, in index order), each throttled to `rate` B/s, and adds them as
    /// one JSON list named `<list>.json`. Returns the URL paths.
    @discardableResult
    public func addList(_ list: String, serving files: [(path: String, body: [UInt8])], rate: Int? = nil) throws
        -> [String] {
        for (path, body) in files {
            origin.serve(path: path, bytes: body)
            bodies[path] = body
            if let rate { origin.inject(.throttle(bytesPerSecond: rate), at: path) }
        }
        let paths = files.map(\.path)
        let manifest = dir.appending(list + ".json")
        try Data(JSON.encode(paths.map { origin.url(for: $0) }))
            .write(to: URL(fileURLWithPath: manifest))
        try must(["add", manifest])
        return paths
    }

    /// `transfers`: each worker's transfers at once. One by default: most tests count jobs by workers
    /// (a worker killed holds one job, N workers hold N); TransfersTests, the chaos runner and the demo
    /// run the farm's default.
    public func start(workers: Int, transfers: Int = 1, lease: Double = 3) throws {
        try must(["start", "--workers", String(workers), "--lease", String(lease), "--transfers", String(transfers)])
        _ = processes()
    }

    /// The live farm processes (remembering their pids for the clean-up).
    @discardableResult
    public func processes() -> [FarmProcess] {
        let live = spool.registry.processes()
        seen.formUnion(live.map(\.pid))
        return live
    }

    public func pids(_ role: Role) -> [pid_t] { processes().filter { $0.role == role }.map(\.pid) }

    public var counts: [JobState: Int] { SpoolFixtures.counts(spool) }

    /// Bytes downloaded so far of every partial download, by job name.
    public func partialSizes() -> [String: Int] {
        // A URL's partial (`u<key>`) is named here after the first job of that URL.
        var jobOfURL: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: spool.lists.folder)) ?? [] where name.hasSuffix(".resources") {
            let list = String(name.dropLast(".resources".count))
            for (index, record) in (spool.lists.resources(ofList: list) ?? []).enumerated() {
                let partial = URL(fileURLWithPath: Dedup(spool).partialPath(url: record.url)).lastPathComponent
                if jobOfURL[partial] == nil { jobOfURL[partial] = JobName(list: list, index: index).raw }
            }
        }
        var sizes: [String: Int] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: spool.partial)) ?? [] {
            var st = stat()
            if stat(spool.partial + "/" + name, &st) == 0 { sizes[jobOfURL[name] ?? name] = Int(st.st_size) }
        }
        return sizes
    }

    /// Bytes of the partial download of `url` so far (0 when there is none).
    public func partialSize(url: String) -> Int {
        var st = stat()
        return stat(Dedup(spool).partialPath(url: url), &st) == 0 ? Int(st.st_size) : 0
    }

    /// Waits until every job is done.
    public func waitUntilAllDone(_ total: Int, timeout: Double = 180) -> Bool {
        poll(timeout: timeout, every: 0.1) { counts == [.done: total] }
    }
}

/// True when `pid` is gone (or only a zombie waiting for a parent that is not us to reap it).
public func isGone(_ pid: pid_t) -> Bool { Processes.hasEnded(pid) }

/// A command a test needed to succeed did not.
public struct CommandFailed: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
