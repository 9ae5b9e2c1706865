import ArgumentParser
import FarmSystem
import Foundation
import Glibc

/// `add --dir D --urls 100000 --deleted 150000`: what `farm add` of one large list to a new spool costs on
/// the file system of D, and where the time goes:
/// - `farm add` quiet (nothing deleted on that file system for longer than the kernel's
///   `dirty_expire_centisecs`), and right after another program deleted `--deleted` files there; each with
///   the seconds its one syncfs(2) took (strace -T, seccomp-filtered so that no other call is slowed) and
///   its CPU seconds in the kernel;
/// - the two ways to make the same files durable, in this process: one syncfs, against an fdatasync of
///   each file and an fsync of each folder (flushing only what the add wrote).
struct AddBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add")

    @OptionGroup var workspace: Workspace
    @Option(help: "The farm executable.") var farm = Spawned.sibling("farm")
    @Option(help: "URLs in the list added.") var urls = 100_000
    @Option(help: "Files another program deletes just before the second add.") var deleted = 150_000
    @Option(help: "Rounds of each measurement.") var rounds = 3

    func run() throws {
        let base = try workspace.make("add")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let manifest = base + "/list.json"
        try Data(("[" + (0..<urls).map { "\"http://127.0.0.1:1/r/\($0).jpg\"" }.joined(separator: ",") + "]").utf8)
            .write(to: URL(fileURLWithPath: manifest))
        // The window in which ext4 without a journal passes over freed inodes when it allocates one.
        let window = ((try? String(contentsOfFile: "/proc/sys/vm/dirty_expire_centisecs", encoding: .utf8))
            .flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 3000) / 100
        print("\(urls) URLs in \(workspace.dir); a deletion counts as recent for \(Int(window)) s")
        print("case             add        syncfs in it   kernel CPU")
        var lastDeletion = Clock.monotonic()
        for round in 1...rounds {
            waitOut(window + 1, since: lastDeletion)
            let quiet = try add(manifest, spool: base + "/quiet-\(round)")
            print(row("quiet", quiet))
            try deleteFiles(in: base + "/other-\(round)")
            let afterDeletes = try add(manifest, spool: base + "/after-\(round)")
            print(row("after deletes", afterDeletes))
            try? FileManager.default.removeItem(atPath: base + "/quiet-\(round)")
            try? FileManager.default.removeItem(atPath: base + "/after-\(round)")
            lastDeletion = Clock.monotonic()
        }
        print("flushing \(urls) job files written as an add writes them (shards of 1,000)")
        print("flush                                 seconds")
        for round in 1...rounds {
            waitOut(window + 1, since: lastDeletion)
            for perFile in [false, true] {
                let stage = base + "/flush-\(round)-\(perFile)"
                let seconds = try writeAndFlush(stage, perFile: perFile)
                print((perFile ? "fdatasync each file, fsync each folder" : "one syncfs").padded(38)
                    + String(format: "%.2f", seconds))
                try? FileManager.default.removeItem(atPath: stage)
                lastDeletion = Clock.monotonic()
            }
        }
    }

    private struct Added {
        var seconds: Double
        var syncfs: Double?
        var kernel: Double
    }

    private func row(_ name: String, _ added: Added) -> String {
        name.padded(17) + String(format: "%.2f s", added.seconds).padded(11)
            + (added.syncfs.map { String(format: "%.2f s", $0) } ?? "-").padded(15)
            + String(format: "%.2f s", added.kernel)
    }

    /// `farm add` of the manifest to a new spool at `spool`, under strace when there is one.
    private func add(_ manifest: String, spool: String) throws -> Added {
        let trace = spool + ".strace"
        let candidates: [String] = ["/usr/bin/strace", "/bin/strace"]
        let strace = candidates.first { access($0, X_OK) == 0 }
        let command = strace.map { [$0, "-f", "--seccomp-bpf", "-T", "-e", "trace=syncfs", "-o", trace, farm] } ?? [farm]
        // The kernel CPU of the children reaped (time, strace, farm), before and after.
        let children = __rusage_who_t(RUSAGE_CHILDREN.rawValue)
        var usage = rusage()
        let before = getrusage(children, &usage) == 0 ? usage.ru_stime.seconds : 0
        let result = try Spawned.run(command[0], Array(command.dropFirst()) + ["add", manifest, "--spool", spool],
                                     log: spool + ".log")
        let after = getrusage(children, &usage) == 0 ? usage.ru_stime.seconds : 0
        // A line such as `1234 syncfs(8) = 0 <0.884213>`.
        let syncfs = (try? String(contentsOfFile: trace, encoding: .utf8))?.split(separator: "\n")
            .first { $0.contains("syncfs(") }
            .flatMap { line in line.lastIndex(of: "<").map { Double(line[line.index(after: $0)...].dropLast()) } } ?? nil
        unlink(trace)
        return Added(seconds: result.seconds, syncfs: syncfs, kernel: after - before)
    }

    /// What another program does: makes `deleted` small files, flushes them, deletes them.
    private func deleteFiles(in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for n in 0..<deleted {
            let fd = open(directory + "/\(n)", O_CREAT | O_WRONLY | O_EXCL, 0o600)
            guard fd >= 0 else { throw ValidationError("cannot make \(directory)/\(n): errno \(errno)") }
            _ = "x".withCString { write(fd, $0, 1) }
            close(fd)
        }
        sync()
        try FileManager.default.removeItem(atPath: directory)
    }

    /// Writes `urls` job-sized files in shards of 1,000 under `stage`, then flushes them: by one syncfs,
    /// or file by file and folder by folder. Returns the flush's seconds.
    private func writeAndFlush(_ stage: String, perFile: Bool) throws -> Double {
        var paths: [String] = []
        var folders = [stage]
        try FileManager.default.createDirectory(atPath: stage, withIntermediateDirectories: true)
        for n in 0..<urls {
            if n % 1000 == 0 {
                folders.append(stage + "/s\(n / 1000)")
                mkdir(folders.last!, 0o700)
            }
            let path = folders.last! + "/j\(n)"
            let fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0o600)
            guard fd >= 0 else { throw ValidationError("cannot make \(path): errno \(errno)") }
            let record = "{\"id\":\"r\(n)\",\"url\":\"http://127.0.0.1:1/r/\(n).jpg\"}\n"
            _ = record.withCString { write(fd, $0, strlen($0)) }
            close(fd)
            paths.append(path)
        }
        let start = Clock.monotonic()
        if perFile {
            for path in paths + folders.reversed() {
                let fd = open(path, O_RDONLY)
                fdatasync(fd)
                close(fd)
            }
        } else {
            try FileSystem.syncFileSystem(stage)
        }
        return Clock.monotonic() - start
    }

    /// Sleeps until `seconds` have passed since `since` (monotonic), saying so when it is long.
    private func waitOut(_ seconds: Double, since: Double) {
        let left = since + seconds - Clock.monotonic()
        guard left > 0 else { return }
        print("(waiting \(Int(left.rounded(.up))) s for the last deletion to stop counting as recent)")
        Thread.sleep(forTimeInterval: left)
    }
}
