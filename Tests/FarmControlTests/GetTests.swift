import FarmControl
import FarmOrigin
import FarmRegistry
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `farm get` (SPEC §15) on a real origin, run as a user runs it: under a pseudo-terminal and in a pipe,
/// stopped by SIGINT (what ^C sends it) and run again, alone and beside a farm that runs other lists.
@Suite struct GetTests {
    /// Serves `count` bodies of `size` bytes under /get/<n>.bin, throttled to `rate` bytes a second each.
    private func serve(_ farm: RunningFarm, _ count: Int, size: Int, rate: Int?, prefix: String = "get")
        -> [(path: String, body: [UInt8])] {
        (0..<count).map { n in
            let path = "/\(prefix)/\(n).bin"
            let body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ n &* 13 &+ $0 >> 9) }
            farm.origin.serve(path: path, bytes: body)
            if let rate { farm.origin.inject(.throttle(bytesPerSecond: rate), at: path) }
            return (path, body)
        }
    }

    /// Whether every file of `files` is in `folder` under its URL's name, with the origin's bytes.
    private func delivered(_ files: [(path: String, body: [UInt8])], in folder: String) -> Bool {
        files.allSatisfy { file in
            let name = String(file.path.split(separator: "/").last!)
            return FileManager.default.contents(atPath: folder + "/" + name).map { [UInt8]($0) } == file.body
        }
    }

    @Test func underATerminalShowsBarsStopsOnCtrlCAndResumesByRange() throws {
        let farm = try RunningFarm()
        let files = serve(farm, 3, size: 600_000, rate: 60_000)
        let out = farm.dir.appending("out")
        let arguments = ["get"] + files.map { farm.origin.url(for: $0.path) } + ["--out", out, "--spool", farm.spool.root]
        let get = try TerminalProcess("farm", arguments, environment: farm.environment)
        // Under way: each of the three has bytes on disk.
        #expect(poll(timeout: 60, every: 0.1) { farm.processes().count > 0 && Self.kept(farm, files).allSatisfy { $0 > 50_000 } },
                "\(get.output)")
        let screen = get.output
        for name in ["0.bin", "1.bin", "2.bin", "total"] { #expect(screen.contains(name), "\(screen)") }
        #expect(screen.contains("[#"), "a bar with something done: \(screen)")
        #expect(screen.contains("\u{1B}["), "drawn in place, as a terminal is: \(screen)")

        get.kill(SIGINT)
        #expect(get.wait(timeout: 60) == 130, "\(get.output)")
        #expect(get.output.contains("the same farm get resumes"), "\(get.output)")
        // The farm it started is stopped, and the bytes stay.
        #expect(poll(timeout: 30) { farm.spool.registry.processes().isEmpty })
        let kept = Self.kept(farm, files)
        #expect(kept.allSatisfy { $0 > 50_000 && $0 < 600_000 }, "\(kept)")
        let early = delivered(files, in: out)
        #expect(!early)

        farm.origin.clearFaults()
        let again = try run("farm", arguments, environment: farm.environment, timeout: 180)
        #expect(again.status == 0, "\(again.output) \(again.error)")
        #expect(again.output.contains("finished: 3 resource(s)"), "\(again.output)")
        let whole = delivered(files, in: out)
        #expect(whole, "each file with the origin's bytes")
        for (file, first) in zip(files, kept) {
            let ranges = farm.origin.requests(for: file.path).compactMap(\.rangeStart)
            // The origin's log: the second get asked for the rest, from at least the bytes kept.
            #expect(ranges.contains { $0 >= first }, "\(file.path): \(farm.origin.requests(for: file.path))")
            #expect(farm.origin.requests(for: file.path).count == 2, "one request before ^C, one ranged after")
        }
        #expect(poll(timeout: 30) { farm.spool.registry.processes().isEmpty }, "a farm get started is stopped when it is done")
    }

    @Test func plainLinesWhenNotATerminalAndOneFileNamedByO() throws {
        let farm = try RunningFarm()
        let files = serve(farm, 1, size: 200_000, rate: nil)
        let out = farm.dir.appending("plain")
        let result = try run("farm", ["get", farm.origin.url(for: files[0].path), "-o", "renamed.dat", "--out", out,
                                      "--spool", farm.spool.root], environment: farm.environment, timeout: 180)
        #expect(result.status == 0, "\(result.output) \(result.error)")
        let renamed = FileManager.default.contents(atPath: out + "/renamed.dat").map { [UInt8]($0) } == files[0].body
        #expect(renamed, "the file under the name -o gave, with the origin's bytes")
        #expect(!FileManager.default.fileExists(atPath: out + "/0.bin"))
        #expect(result.output.contains("renamed.dat: Done"), "\(result.output)")
        #expect(!result.output.contains("\u{1B}") && !result.output.contains("[#"), "no bars in a pipe: \(result.output)")
        #expect(poll(timeout: 30) { farm.spool.registry.processes().isEmpty }, "the farm it started is stopped")

        let refused = try run("farm", ["get", farm.origin.url(for: files[0].path), farm.origin.url(for: "/x.bin"),
                                       "-o", "one.dat", "--spool", farm.spool.root], environment: farm.environment)
        #expect(refused.status == 2, "\(refused.error)")
        #expect(refused.error.contains("-o names one file"), "\(refused.error)")
    }

    /// As wget and curl take them: `host:port/path` without a scheme is http, and a URL of a folder or a
    /// host alone is saved as `index.html` (issue 66).
    @Test func aURLWithoutASchemeIsHTTPAndAFolderIsSavedAsIndexHTML() throws {
        let farm = try RunningFarm()
        let files = serve(farm, 1, size: 50_000, rate: nil)
        let page = Array("<html><body>the root</body></html>\n".utf8)
        farm.origin.serve(path: "/", bytes: page)
        let bare = String(farm.origin.url(for: files[0].path).dropFirst("http://".count))
        #expect(!bare.contains("://"))
        let out = farm.dir.appending("wget")
        let result = try run("farm", ["get", bare, farm.origin.url(for: "/"), "--out", out, "--spool", farm.spool.root],
                             environment: farm.environment, timeout: 180)
        #expect(result.status == 0, "\(result.output) \(result.error)")
        #expect(delivered(files, in: out), "\(bare) fetched over http")
        #expect(FileManager.default.contents(atPath: out + "/index.html").map { [UInt8]($0) } == page,
                "\((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [])")
        #expect(farm.origin.requests(for: files[0].path).count >= 1)

        // A lone word is a file name mistyped, not a host: refused as before.
        let missing = try run("farm", ["get", "urls.txt", "--spool", farm.spool.root], environment: farm.environment)
        #expect(missing.status == 2 && missing.error.contains("neither an http(s) URL nor a readable file"),
                "\(missing.error)")
    }

    @Test func ctrlCOnAFarmRunningOtherListsStopsOnlyItsOwn() throws {
        let farm = try RunningFarm()
        let others = try farm.addList("Other", count: 2, size: 300_000, rate: 40_000)
        try farm.start(workers: 4)
        let supervisor = farm.pids(.supervisor)
        let files = serve(farm, 2, size: 600_000, rate: 60_000)
        let out = farm.dir.appending("mine")
        let arguments = ["get"] + files.map { farm.origin.url(for: $0.path) } + ["--out", out, "--spool", farm.spool.root]
        let get = try TerminalProcess("farm", arguments, environment: farm.environment)
        #expect(poll(timeout: 60, every: 0.1) { Self.kept(farm, files).allSatisfy { $0 > 50_000 } }, "\(get.output)")
        get.kill(SIGINT)
        #expect(get.wait(timeout: 60) == 130, "\(get.output)")

        // The farm runs on, with the same supervisor, and finishes the other list, never interrupted.
        #expect(farm.pids(.supervisor) == supervisor)
        let wait = try farm.farm(["wait", "--timeout", "120"])
        #expect(wait.status == 0, "\(wait.output) \(wait.error)")
        #expect(wait.output.contains("held by a stopped farm get"), "\(wait.output)")
        for path in others {
            #expect(farm.origin.requests(for: path).count == 1, "\(path) was fetched once, without a break")
        }
        // Its list is held: no worker takes it, its bytes stay as they were.
        let kept = Self.kept(farm, files)
        Thread.sleep(forTimeInterval: 2)
        #expect(Self.kept(farm, files) == kept, "nobody downloads a held list")
        #expect(kept.allSatisfy { $0 > 50_000 && $0 < 600_000 }, "\(kept)")
        #expect(farm.spool.activeJobs().isEmpty)

        farm.origin.clearFaults()
        let again = try run("farm", arguments, environment: farm.environment, timeout: 180)
        #expect(again.status == 0, "\(again.output) \(again.error)")
        let whole = delivered(files, in: out)
        #expect(whole, "each file with the origin's bytes")
        for (file, first) in zip(files, kept) {
            #expect(farm.origin.requests(for: file.path).compactMap(\.rangeStart).contains { $0 >= first })
        }
        #expect(farm.pids(.supervisor) == supervisor, "a farm get did not start is left running")
    }

    /// One default spool for every command (SPEC §3): what `farm get` fetched in a folder without a spool is
    /// what `farm status` and `farm fsck` then show from that folder, and status names the spool.
    @Test func getStatusAndFsckShareTheDefaultSpool() throws {
        let farm = try RunningFarm()
        let files = serve(farm, 1, size: 50_000, rate: nil)
        let home = farm.dir.appending("home"), work = farm.dir.appending("work")
        for folder in [home, work] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let environment = farm.environment.merging(["HOME": home, "XDG_STATE_HOME": "", "FARM_SPOOL": ""]) { $1 }
        let userSpool = home + "/.local/state/farm"
        defer { _ = try? run("farm", ["stop", "--spool", userSpool], environment: environment, timeout: 60) }
        let get = try run("farm", ["get", farm.origin.url(for: files[0].path)], environment: environment,
                          timeout: 180, directory: work)
        #expect(get.status == 0, "\(get.output) \(get.error)")
        #expect(delivered(files, in: work), "the file in the current folder")
        #expect(FileManager.default.fileExists(atPath: userSpool + "/queue"), "the spool in the user's state folder")
        #expect(!FileManager.default.fileExists(atPath: work + "/spool"), "no spool made in the current folder")

        let status = try run("farm", ["status"], environment: environment, directory: work)
        #expect(status.status == 0, "\(status.output) \(status.error)")
        #expect(status.output.split(separator: "\n").last.map(String.init) == "spool: " + userSpool, "\(status.output)")
        #expect(status.output.contains("1/1"), "the list get made, done: \(status.output)")
        let fsck = try run("farm", ["fsck"], environment: environment, directory: work)
        #expect(fsck.status == 0, "\(fsck.output) \(fsck.error)")

        // $XDG_STATE_HOME, when set, is where the user's spool is; a ./spool, when there, comes first.
        let state = farm.dir.appending("state")
        let elsewhere = try run("farm", ["status"], environment: environment.merging(["XDG_STATE_HOME": state]) { $1 },
                                directory: work)
        #expect(elsewhere.status == 1 && elsewhere.error.contains("no spool at " + state + "/farm"), "\(elsewhere.error)")
        try FileManager.default.createSymbolicLink(atPath: work + "/spool", withDestinationPath: userSpool)
        let local = try run("farm", ["status"], environment: environment.merging(["XDG_STATE_HOME": state]) { $1 },
                            directory: work)
        #expect(local.status == 0 && local.output.hasSuffix("spool: " + userSpool + "\n"), "\(local.output) \(local.error)")
    }

    /// As wget's and curl's: each file is the user's own (no storage shared with the spool, mode 0666 less the
    /// umask of the `farm get`), so an edit of it leaves the spool's download as it was; `--link` asks for a
    /// hard link of the spool's file, and gets one.
    @Test func eachFileIsTheUsersOwnUnderTheCommandsUmaskAndAHardLinkOnlyWithLink() throws {
        let farm = try RunningFarm()
        let files = serve(farm, 2, size: 150_000, rate: nil)
        let own = farm.dir.appending("own")
        let got = try farm.farm(umask: 0o002, ["get", farm.origin.url(for: files[0].path), "--out", own], timeout: 180)
        #expect(got.status == 0, "\(got.output) \(got.error)")
        let path = own + "/0.bin"
        var mine = stat()
        #expect(stat(path, &mine) == 0)
        #expect(mine.st_nlink == 1 && mine.st_mode & 0o7777 == 0o664,
                "\(mine.st_nlink) link(s), mode \(String(mine.st_mode & 0o7777, radix: 8))")
        // The spool's download (its output in files/ and its blob in blobs/) is another inode.
        let stored = Self.regularFiles(below: farm.spool.root + "/files") + Self.regularFiles(below: farm.spool.root + "/blobs")
        let spoolsCopies = stored.filter { FileManager.default.contents(atPath: $0).map { [UInt8]($0) } == files[0].body }
        #expect(!spoolsCopies.isEmpty, "\(stored)")
        #expect(spoolsCopies.allSatisfy { Self.inode($0) != mine.st_ino }, "it shares the spool's file")

        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("x\n".utf8))
        try handle.close()
        #expect(spoolsCopies.allSatisfy { FileManager.default.contents(atPath: $0).map { [UInt8]($0) } == files[0].body },
                "the edit reached the spool")
        let fsck = try farm.farm(["fsck"])
        #expect(fsck.status == 0, "\(fsck.output)")

        let linked = farm.dir.appending("linked")
        let link = try farm.farm(["get", farm.origin.url(for: files[1].path), "--out", linked, "--link"], timeout: 180)
        #expect(link.status == 0, "\(link.output) \(link.error)")
        let inode = Self.inode(linked + "/1.bin")
        let stored1 = Self.regularFiles(below: farm.spool.root + "/files").filter { Self.inode($0) == inode }
        #expect(inode != nil && stored1.count == 1, "not a hard link of the spool's output")
        let whole = delivered([files[1]], in: linked)
        #expect(whole)
    }

    private static func inode(_ path: String) -> ino_t? {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_ino : nil
    }

    /// Every regular file below `folder`, as a path.
    private static func regularFiles(below folder: String) -> [String] {
        (FileManager.default.subpaths(atPath: folder) ?? []).map { folder + "/" + $0 }.filter { path in
            var st = stat()
            return lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
        }
    }

    /// The bytes kept of each file, in order, from the URL partials in the spool (0 for none).
    private static func kept(_ farm: RunningFarm, _ files: [(path: String, body: [UInt8])]) -> [Int] {
        files.map { farm.partialSize(url: farm.origin.url(for: $0.path)) }
    }
}
