import ArgumentParser
import FarmSystem
import Foundation
import Glibc

/// `all` (the default subcommand; `bin/benchmark` runs it): every section of the benchmark, or those
/// `--only` names, one after another in a fixed order. Each section is this executable run again with
/// one of the other subcommands, sharing our output, under a `## …` header; the first that fails ends
/// the run with its exit code. The sections' tmpfs is /dev/shm (when there is one), their disk `--disk`.
struct AllBenchmarks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all",
        abstract: "Run every section of the benchmark (the default), or those --only names.",
        discussion: """
            Measures farm where tests must not (a release build: bin/benchmark builds one, installs the \
            peers and runs this): farm against wget2, curl and aria2c on the same corpus served by nginx \
            (tmpfs and disk); from a slow origin, the whole job and over HTTPS; claim cost, farm add, each \
            role's peak RSS and farm fsck on large queues; one worker's jobs/s; the running farm's \
            latencies; the status lag; page-1 rendering; farm serve's windows; farm on a GlusterFS \
            volume; an unchanged list's sync; the paged-API follower; one large file over many connections; a \
            generated site mirrored by farm add --recursive against wget -r and wget2 -r. Each section is a run of one of \
            the other subcommands, which --help of each describes.
            """)

    /// The sections, in the order they run.
    static let sections = ["peers", "slow", "whole", "https", "claims", "roles", "add", "worker", "control", "sync",
                           "lag", "render", "window", "cluster", "pages", "pieces", "mirror"]

    @Option(help: ArgumentHelp(
        "The disk directory: the corpus, and the spools of the runs on a disk (default: .build/bench of the "
            + "package this executable was built in).", valueName: "dir"))
    var disk: String?

    /// The peers section's sets; the slow, whole and https sections download the small one.
    @OptionGroup var sets: CorpusSets

    /// Rounds of each tools-against-each-other section (peers, slow, whole, https, mirror).
    @OptionGroup var rounds: Rounds

    @Option(help: "The tools the peers section compares, comma-separated.")
    var tools = "farm-off,farm-on,farm-limited-off,floor-spool,wget2,curl,aria2c"

    @Option(help: "The queue sizes of the claims section (jobs), comma-separated.")
    var sizes = "1000,100000,1000000"

    @Option(help: ArgumentHelp(
        "The queue sizes of the roles section (farm add, each role's peak RSS, farm fsck), comma-separated."))
    var roles = "100000,1000000"

    @Option(help: ArgumentHelp(
        "Run only these sections, comma-separated. They run in this order, whatever the order given: peers "
            + "(farm against wget2, curl and aria2c), slow (a slow origin), whole (the whole job, conversions "
            + "on), https, claims, roles, add (farm add of one large list), worker (one worker's jobs/s), "
            + "control (the running farm's latencies), sync (an unchanged list), lag (the status lag), render "
            + "(page 1 of a PDF), window (farm serve's windows), cluster (a GlusterFS volume: root and "
            + "/dev/fuse), pages (paged APIs), pieces (one large file over many connections, mirrors, and on two "
            + "hosts of a GlusterFS volume), mirror (a generated site mirrored to level 3 from a slow origin, against wget "
            + "and wget2).", valueName: "sections"))
    var only = sections.joined(separator: ",")

    @Option(help: ArgumentHelp(
        "The PDF whose page 1 the render section renders (default: libtasn1's manual when installed, else "
            + "2.pdf of the small set's corpus when there).", valueName: "file"))
    var pdf: String?

    @Option(help: "Resources in the list whose windows farm serve answers (window section).")
    var window = 100_000

    @Option(help: "Files in the cluster section's list.")
    var clusterFiles = 600

    @Option(help: "Seconds the slow origin adds to every response.")
    var delay = 0.02

    @Option(help: "The slow origin's transfers at once, comma-separated: one run of each.")
    var slowParallel = "6,64"

    @Option(help: "The transfers at once over HTTPS, comma-separated: one run of each.")
    var httpsParallel = "6"

    @Option(help: "Resources in the unchanged list the sync section syncs.")
    var sync = 10_000

    @Option(help: "The pages (of 100 items) of the paged APIs, comma-separated.")
    var pages = "1000,10000"

    @Option(help: "URLs in the list the add section adds.")
    var add = 100_000

    @Option(help: "Pages of the site the mirror section generates and mirrors.")
    var mirrorPages = 400

    func validate() throws {
        let unknown = words(only).filter { !Self.sections.contains($0) }
        guard unknown.isEmpty else {
            throw ValidationError("unknown section \(unknown.joined(separator: ", ")) in --only; the sections: "
                + Self.sections.joined(separator: ", "))
        }
    }

    func run() throws {
        let disk = self.disk.flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultDisk
        let only = Set(words(self.only))
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        print("# \(Self.today) \(Self.output(of: ["nproc"])) cores, \(Self.kernel); disk: \(disk) "
            + "(\(Self.fileSystemType(of: disk)))")
        let tmpfs = "/dev/shm"
        let dirs = ((try? FileSystem.stat(tmpfs).type) == .directory ? [tmpfs] : []) + [disk]
        let corpus = disk + "/corpus"
        let files = String(sets.files)
        let rounds = String(self.rounds.count)
        if only.contains("peers") {
            try section("farm against wget2, curl and aria2c (nginx on 127.0.0.1)", [
                "peers", "--corpus", corpus, "--dirs", dirs.joined(separator: ","), "--rounds", rounds,
                "--tools", tools] + sets.arguments)
        }
        // The slow origin and HTTPS: downloads written to tmpfs (when there is one), where the file system
        // costs least, so what is measured is the waiting and the connections.
        let fastest = dirs[0]
        if only.contains("slow") {
            for parallel in words(slowParallel) {
                try section("a slow origin, \(parallel) transfers at once", [
                    "peers", "--corpus", corpus, "--dirs", fastest, "--sets", "small", "--files", files,
                    "--rounds", rounds, "--tools", "farm-off,wget2,curl,aria2c", "--parallel", parallel,
                    "--delay", String(delay), "--sample-memory"])
            }
        }
        // Issue 26's goal 4: with conversions on, farm's last byte against its last byte with them off, and
        // the whole job against wget2 followed by unzip and vipsthumbnail.
        if only.contains("whole") {
            try section("the whole job: conversions on and off, and wget2 + vipsthumbnail", [
                "peers", "--corpus", corpus, "--dirs", fastest, "--sets", "small", "--files", files,
                "--rounds", rounds, "--tools", "farm-off,farm-on,wget2-vips", "--last-byte"])
        }
        if only.contains("https") {
            for parallel in words(httpsParallel) {
                try section("HTTPS, \(parallel) transfers at once", [
                    "peers", "--corpus", corpus, "--dirs", fastest, "--sets", "small", "--files", files,
                    "--rounds", rounds, "--tools", "farm-off,floor-bare,wget2,curl", "--parallel", parallel, "--https"])
            }
        }
        if only.contains("claims") {
            for dir in dirs {
                try section("claims (\(dir))", ["claims", "--dir", dir, "--jobs", sizes])
            }
        }
        if only.contains("roles") {
            try section("farm add and each role's peak RSS on a large queue",
                        ["roles", "--dir", disk, "--jobs", roles])
        }
        if only.contains("add") {
            try section("farm add of one large list, and where its time goes (\(disk))",
                        ["add", "--dir", disk, "--urls", String(add)])
        }
        if only.contains("worker") {
            try section("one worker, 16 KB files, spool under \(disk)",
                        ["worker", "--files", "2000", "--size", "16384", "--dir", disk])
        }
        if only.contains("control") {
            try section("the running farm", ["control", "--runs", "10", "--dir", disk])
        }
        if only.contains("sync") {
            try section("farm sync of an unchanged list of \(sync) resources",
                        ["sync", "--resources", String(sync), "--dir", disk])
        }
        if only.contains("lag") {
            try section("status lag", ["status-lag", "--changes", "500"])
        }
        if only.contains("render") {
            let candidates = ["/usr/share/doc/libtasn1-doc/libtasn1.pdf", "\(corpus)/small-\(files)-v1/2.pdf"]
            if let pdf = pdf.flatMap({ $0.isEmpty ? nil : $0 })
                ?? candidates.first(where: { (try? FileSystem.stat($0).type) == .regular }) {
                try section("page 1 of \(pdf)", ["render", "--pdf", pdf, "--runs", "31"])
            } else {
                print("## page 1 of a PDF: pass --pdf file.pdf")
            }
        }
        if only.contains("window") {
            try section("farm serve: windows of a list of \(window) resources (spool under \(disk))",
                        ["window", "--dir", disk, "--resources", String(window)])
        }
        if only.contains("cluster") {
            print("## farm on a GlusterFS volume made on this machine (hosts as network namespaces)")
            if geteuid() == 0 && (try? FileSystem.stat("/dev/fuse").type) == .characterSpecial {
                try bench(["cluster", "--hosts", "1,2,3", "--workers", "6", "--files", String(clusterFiles)])
            } else {
                print("skipped: a cluster needs root and /dev/fuse")
            }
        }
        if only.contains("pages") {
            try section("paged JSON APIs: the follower's pages/s and peak RSS (spool under \(disk))",
                        ["pages", "--dir", disk, "--pages", pages])
        }
        // Issue 48's goals, a run a mode: nginx's cap a connection, one slow connection, kills, mirrors, and
        // two hosts on GlusterFS (root and /dev/fuse).
        if only.contains("pieces") {
            let modes = [("nginx", "farm-1,farm-8,farm-32,aria2c-8,aria2c-16"), ("slow-connection", "farm-8,aria2c-8"),
                         ("kills", "farm-8"), ("mirrors", "farm-8,farm-8-mirrors,aria2c-8-mirrors")]
            for (mode, tools) in modes {
                try section("one large file over many connections (\(mode))", [
                    "pieces", "--corpus", corpus, "--dir", fastest, "--mode", mode, "--tools", tools, "--rounds", "3"])
            }
            if geteuid() == 0 && (try? FileSystem.stat("/dev/fuse").type) == .characterSpecial {
                try section("one large file on two hosts of a GlusterFS volume",
                            ["pieces", "--corpus", corpus, "--mode", "cluster", "--rounds", "2"])
            }
        }
        // Issue 64's goals: a site of about 400 pages, from an origin adding the slow section's delay, mirrored
        // to level 3 by farm at 6 workers, wget and wget2 at 6 threads; written to tmpfs like the slow section.
        if only.contains("mirror") {
            try section("a site mirrored: farm add --recursive against wget -r -p and wget2 -r", [
                "mirror", "--corpus", corpus, "--dir", fastest, "--pages", String(mirrorPages), "--level", "3",
                "--rounds", rounds, "--delay", String(delay), "--parallel", "6"])
        }
    }

    /// Prints the section's header, then runs it.
    private func section(_ title: String, _ arguments: [String]) throws {
        print("## " + title)
        try bench(arguments)
    }

    /// Runs this executable with `arguments` (a subcommand and its options), its output ours; a failure
    /// ends the run with the section's exit code.
    private func bench(_ arguments: [String]) throws {
        let code = try Spawned.attached(Spawned.me, arguments)
        guard code == 0 else {
            let command = "farm-benchmark " + arguments.joined(separator: " ")
            FileHandle.standardError.write(Data("farm-benchmark all: `\(command)` exited \(code)\n".utf8))
            throw ExitCode(code)
        }
    }

    /// The comma-separated words of `list`, the empty ones left out.
    private func words(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `.build/bench` of the package this executable was built in (it lies under its `.build`); the
    /// working directory's when it was built elsewhere.
    static var defaultDisk: String {
        var directory = URL(fileURLWithPath: Spawned.me).deletingLastPathComponent()
        while directory.path != "/" {
            if directory.lastPathComponent == ".build" { return directory.path + "/bench" }
            directory.deleteLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath + "/.build/bench"
    }

    /// Today in UTC, as `date -u +%Y-%m-%d` writes it.
    static var today: String {
        ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!,
                                    formatOptions: .withFullDate)
    }

    /// The kernel's release, as `uname -r` writes it.
    static var kernel: String {
        var names = utsname()
        guard uname(&names) == 0 else { return "?" }
        return withUnsafeBytes(of: names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The type of the file system `path` is on, as `df -T` names it (its second line's second column).
    static func fileSystemType(of path: String) -> String {
        let lines = output(of: ["df", "-T", path]).split(separator: "\n")
        guard lines.count > 1 else { return "" }
        return lines[1].split(separator: " ").dropFirst().first.map(String.init) ?? ""
    }

    /// What `command` (its first word looked up in PATH) writes, its output and errors together, trimmed;
    /// empty when it cannot run.
    static func output(of command: [String]) -> String {
        let log = NSTemporaryDirectory() + "/farm-bench-all-\(getpid()).out"
        defer { unlink(log) }
        _ = try? Spawned.run(command[0], Array(command.dropFirst()), log: log, check: false)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
