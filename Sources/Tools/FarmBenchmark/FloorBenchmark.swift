import ArgumentParser
import FarmSystem
import FarmTransfer
import Foundation
import Glibc
import SystemPackage

/// `floor`: the least a farm could cost on the small set, as a peer of `peers` (tools `floor-bare` and
/// `floor-spool`). It runs farm's own transfer engine (FarmTransfer: libcurl's multi handle, a pool per
/// process, one easy handle a transfer, as a worker does) in farm's shape, P processes of T transfers, with
/// nothing around the transfers but what the spool's guarantees need and cannot share between jobs:
///
/// - `bare`: open the output, download into it, close it: what wget2 and curl do for a file.
/// - `spool` (given `--spool`): as a job whose URL is its own, no checksum asked, in a pack of 16 claimed
///   together: the pack's claim (one rename for 16 jobs), the partial made with O_EXCL (a second taker must
///   not write into it), the download, the partial renamed into place (an output is whole or absent after
///   a kill), the job's own completion by rename (completion happens once, and a kill between two jobs of
///   a pack loses neither), and the emptied pack's directory removed.
///
/// No add, no status, no watcher, no lease, no outcome record, no record read: the work is handed out by
/// a fixed stride, the jobs made before the clock starts. What a farm pays beyond `spool` is its
/// protocol's overhead; what `spool` pays beyond wget2 is the engine and the guarantees.
struct FloorBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor",
        abstract: "Download a URL list with farm's transfer engine and only the spool steps no job can skip.",
        shouldDisplay: false)

    @Option(help: "The URLs, one a line.") var urls: String
    @Option(help: "Where the files go (named after the URLs' last components).") var out: String
    @Option(help: "A spool of packs made by `FloorBenchmark.prepare`: take its jobs as farm's guarantees need.")
    var spool: String?
    @Option(help: "Processes.") var processes = 6
    @Option(help: "Transfers a process.") var transfers = 1
    @Option(help: "A CA file to trust (HTTPS from a private CA).") var caFile: String?
    @Option(help: "This process's number (a worker of the floor; without it, the floor starts its workers).")
    var worker: Int?

    /// Jobs a pack: what a claim takes at once.
    static let pack = 16

    func run() throws {
        guard let worker else { return try launch() }
        let lines = try String(contentsOfFile: urls, encoding: .utf8).split(separator: "\n").map(String.init)
        let pool = try TransferPool()
        let slots = processes * transfers
        let failures = Locked<[String]>([])
        let group = DispatchGroup()
        for transfer in 0..<transfers {
            let slot = worker * transfers + transfer
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let handle = try EasyHandle(pool: pool)
                    if let spool {
                        try Self.takePacks(of: slot, among: slots, urls: lines, spool: spool, out: out,
                                           caFile: caFile, handle: handle)
                    } else {
                        for index in stride(from: slot, to: lines.count, by: slots) {
                            try Self.fetch(lines[index], to: out + "/" + Self.name(lines[index]),
                                           flags: [.create, .truncate], caFile: caFile, handle: handle)
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            thread.start()
        }
        group.wait()
        if let first = failures.withLock({ $0.first }) { throw ValidationError("floor worker \(worker): \(first)") }
    }

    /// Jobs `urls` in packs: `todo/<pack>/<job>` (empty files), with `taken`, `fetched` and `writing` beside: the
    /// floor's own folders, named apart from a spool's, since the floor is the least any such protocol does.
    static func prepare(spool: String, jobs: Int) throws {
        for directory in ["todo", "taken", "fetched", "writing"] {
            try FileManager.default.createDirectory(atPath: spool + "/" + directory, withIntermediateDirectories: true)
        }
        for pack in 0..<(jobs + Self.pack - 1) / Self.pack {
            let directory = spool + "/todo/\(pack)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            for job in pack * Self.pack..<min(jobs, (pack + 1) * Self.pack) {
                guard FileManager.default.createFile(atPath: directory + "/\(job)", contents: nil) else {
                    throw ValidationError("cannot make \(directory)/\(job)")
                }
            }
        }
    }

    private static func takePacks(of slot: Int, among slots: Int, urls: [String], spool: String, out: String,
                                  caFile: String?, handle: EasyHandle) throws {
        for pack in stride(from: slot, to: (urls.count + Self.pack - 1) / Self.pack, by: slots) {
            let claimed = spool + "/taken/\(pack)"
            try FileSystem.rename(spool + "/todo/\(pack)", claimed)
            for job in pack * Self.pack..<min(urls.count, (pack + 1) * Self.pack) {
                let partial = spool + "/writing/\(job)"
                try fetch(urls[job], to: partial, flags: [.create, .exclusiveCreate], caFile: caFile,
                          handle: handle)
                try FileSystem.rename(partial, out + "/" + name(urls[job]))
                try FileSystem.rename(claimed + "/\(job)", spool + "/fetched/\(job)")
            }
            guard rmdir(claimed) == 0 else { throw ValidationError("cannot remove \(claimed): errno \(errno)") }
        }
    }

    private static func fetch(_ url: String, to path: String, flags: FileDescriptor.OpenOptions, caFile: String?,
                              handle: EasyHandle) throws {
        let fd = try FileDescriptor.open(path, .writeOnly, options: flags,
                                         permissions: [.ownerReadWrite, .groupRead, .otherRead])
        defer { try? fd.close() }
        var request = DownloadRequest(url: url)
        request.caFile = caFile
        let result = try handle.download(request, into: fd, size: 0) { _ in true }
        guard result.httpStatus == 200 else { throw ValidationError("\(url): HTTP \(result.httpStatus)") }
    }

    private static func name(_ url: String) -> String { String(url[url.index(after: url.lastIndex(of: "/")!)...]) }

    /// Starts the workers, each this program again, and waits for them all.
    private func launch() throws {
        let me = CommandLine.arguments[0]
        var pids: [pid_t] = []
        for worker in 0..<processes {
            var arguments = ["floor", "--urls", urls, "--out", out, "--processes", String(processes),
                             "--transfers", String(transfers), "--worker", String(worker)]
            if let spool { arguments += ["--spool", spool] }
            if let caFile { arguments += ["--ca-file", caFile] }
            var pid: pid_t = 0
            let argv = ([me] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            let spawned = posix_spawn(&pid, me, nil, nil, argv, environ)
            guard spawned == 0 else { throw ValidationError("cannot start a floor worker: errno \(spawned)") }
            pids.append(pid)
        }
        var failed = 0
        for pid in pids {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            if status != 0 { failed += 1 }
        }
        if failed > 0 { throw ValidationError("\(failed) of \(processes) floor workers failed") }
    }
}
