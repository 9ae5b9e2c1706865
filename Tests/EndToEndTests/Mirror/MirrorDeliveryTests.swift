import FarmJSON
import FarmLists
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A recursive list's files in `--out DIR` (SPEC §18): named as GNU wget names them (`host[:port]/path`),
/// and with `--convert-links`, their links rewritten as `wget -k` rewrites them, once the list is finished;
/// a conversion killed half-way leaves every file whole and is done again by the next farm. Both wget and
/// farm mirror the same site (RecursiveListTests' generated one) from the same origin on 127.0.0.1.
@Suite(.serialized) struct MirrorDeliveryTests {
    /// Every file below `folder`, by its path relative to it, with its bytes.
    static func tree(_ folder: String) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        guard let walk = FileManager.default.enumerator(atPath: folder) else { return files }
        while let path = walk.nextObject() as? String {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder), !isFolder.boolValue
            else { continue }
            files[path] = Array(FileManager.default.contents(atPath: folder + "/" + path) ?? Data())
        }
        return files
    }

    /// wget's mirror of the site into a new folder: `-r -l 2 -p` and `extra`. Its robots.txt is left out: wget
    /// saves it as a file of the mirror, farm fetches it for the list (at `farm add`) and keeps it in no folder.
    static func wgetTree(_ origin: Origin, _ extra: [String]) throws
        -> (folder: TemporaryDirectory, files: [String: [UInt8]]) {
        let output = TemporaryDirectory("farm-mirror-wget")
        let result = try run(RecursiveListTests.wget, ["--no-config", "--no-proxy", "-r", "-l", "2", "-p", "-nv", "-t", "1",
                                                      "-T", "20", "-P", output.path] + extra
                                                      + [origin.url(for: "/index.html")], timeout: 300)
        // 8: the server answered an error (the broken link).
        #expect(result.status == 0 || result.status == 8, "\(result.error)")
        var files = tree(output.path)
        files = files.filter { !$0.key.hasSuffix("/robots.txt") }
        origin.clearRequests()
        return (output, files)
    }

    /// The link targets of a page or stylesheet, in order, as written: the values of `href`, `src`, `srcset`
    /// and a refresh's `content`, quotes taken off, and each `url(…)` and `@import "…"`. What `-k` rewrites,
    /// compared as text; the bytes around them (the quotes wget chooses, blanks) are not.
    static func targets(_ bytes: [UInt8]) -> [String] {
        let text = String(decoding: bytes, as: UTF8.self)
        let pattern = #"(?:href|src|srcset|content)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))|url\(\s*['"]?([^'")]*)['"]?\s*\)|@import\s+["']([^"']*)["']"#
        let expression = try! NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            (1...5).lazy.compactMap { Range(match.range(at: $0), in: text).map { String(text[$0]) } }.first
        }
    }

    /// Waits until list `name` is finished and its links are converted (its mark is in the spool); prints what
    /// the watcher said of its conversions.
    static func waitConverted(_ farm: RunningFarm, _ name: String, timeout: Double = 300) throws -> Bool {
        _ = try RecursiveListTests.waitFinished(farm, name, timeout: timeout)
        let converted = poll(timeout: timeout, every: 0.2) {
            FileManager.default.fileExists(atPath: farm.spool.lists.convertedMarkPath(ofList: ListID.of(name: name)))
        }
        let log = (try? String(contentsOfFile: farm.spool.logFile, encoding: .utf8)) ?? ""
        for line in log.split(separator: "\n") where line.contains("convert-links") { print(line) }
        return converted
    }

    @Test func theDeliveredTreeIsWgetsTree() throws {
        let farm = try RunningFarm()
        RecursiveListTests.serveSite(farm.origin)
        let byWget = try Self.wgetTree(farm.origin, [])
        // Not vacuous: pages in folders, images beside them, a stylesheet's image.
        let host = "127.0.0.1:\(farm.origin.port)"
        #expect(byWget.files["\(host)/s2/p3.html"] != nil && byWget.files["\(host)/img/bg.png"] != nil)
        #expect(byWget.files.count > 20)

        let out = farm.dir.appending("mirror")
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "2", "--out", out])
        try farm.start(workers: 2, transfers: 2)
        let list = try #require(try RecursiveListTests.waitFinished(farm, "127.0.0.1"))
        #expect(list.failed == 1)
        // Its counts per host (issue 64), in both views: every link found on the one host, each fetched.
        let json = try farm.must(["status", "127.0.0.1", "--json"])
        let hosts = try #require(JSON.decode(ListStatus.self, from: Array(json.utf8))?.hosts, "\(json)")
        #expect(hosts.map { [$0.host, "\($0.found)", "\($0.fetched)", "\($0.active)", "\($0.queued)"] }
                == [[host, "\(list.total)", "\(list.total)", "0", "0"]])
        #expect(try farm.must(["status", "127.0.0.1"]).contains("\(host): \(list.total) found, \(list.total) fetched, "
                                                                + "0 active, 0 queued"))
        let byFarm = Self.tree(out)
        #expect(Set(byFarm.keys) == Set(byWget.files.keys),
                "only wget: \(Set(byWget.files.keys).subtracting(byFarm.keys).sorted()); only farm: \(Set(byFarm.keys).subtracting(byWget.files.keys).sorted())")
        for (path, bytes) in byWget.files where byFarm[path] != bytes {
            Issue.record("\(path) differs")
        }
    }

    @Test func rejectedPagesAreReadButNotDelivered() throws {
        let farm = try RunningFarm()
        RecursiveListTests.serveSite(farm.origin)
        // p2.html pages are fetched for their links, then left out (wget deletes them); s1.png is never fetched.
        // wget 1.21 leaves a rejected page of the last level behind as "p2.html.tmp": not part of its mirror.
        var byWget = try Self.wgetTree(farm.origin, ["-R", "p2.html,s1.png"])
        byWget.files = byWget.files.filter { !$0.key.hasSuffix(".html.tmp") }
        let host = "127.0.0.1:\(farm.origin.port)"
        #expect(byWget.files["\(host)/s2/p2.html"] == nil && byWget.files["\(host)/s2/img/p2.png"] != nil)
        let out = farm.dir.appending("mirror")
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "2", "--reject",
                       "p2.html,s1.png", "--out", out])
        try farm.start(workers: 2, transfers: 2)
        _ = try #require(try RecursiveListTests.waitFinished(farm, "127.0.0.1"))
        let byFarm = Self.tree(out)
        #expect(Set(byFarm.keys) == Set(byWget.files.keys),
                "only wget: \(Set(byWget.files.keys).subtracting(byFarm.keys).sorted()); only farm: \(Set(byFarm.keys).subtracting(byWget.files.keys).sorted())")
        for (path, bytes) in byWget.files where byFarm[path] != bytes { Issue.record("\(path) differs") }
    }

    @Test func convertedLinksAreWgetsLinks() throws {
        let (farm, byWget, out) = try Self.convertingMirror()
        try farm.start(workers: 2, transfers: 2)
        #expect(try Self.waitConverted(farm, "127.0.0.1"))
        Self.expectSameLinks(Self.tree(out), byWget.files, port: farm.origin.port)
    }

    /// A farm (not started) with the site added at level 2 with `--out` and `--convert-links`, wget's `-k`
    /// tree of the same site, and the folder farm delivers to.
    static func convertingMirror() throws
        -> (farm: RunningFarm, byWget: (folder: TemporaryDirectory, files: [String: [UInt8]]), out: String) {
        let farm = try RunningFarm()
        RecursiveListTests.serveSite(farm.origin)
        let byWget = try Self.wgetTree(farm.origin, ["-k"])
        let out = farm.dir.appending("mirror")
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "2", "--out", out,
                       "--convert-links"])
        return (farm, byWget, out)
    }

    /// `farm`'s converted files against wget's: the same files, and in each page and stylesheet the same link
    /// targets in the same order (relative paths to what was fetched, absolute URLs to what was not).
    static func expectSameLinks(_ byFarm: [String: [UInt8]], _ byWget: [String: [UInt8]], port: Int,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Set(byFarm.keys) == Set(byWget.keys), sourceLocation: sourceLocation)
        var compared = 0
        for (path, bytes) in byWget where path.hasSuffix(".html") || path.hasSuffix(".css") {
            let wget = targets(bytes), ours = targets(byFarm[path] ?? [])
            #expect(ours == wget, "\(path): farm \(ours), wget \(wget)", sourceLocation: sourceLocation)
            compared += 1
        }
        // Not vacuous: pages with relative links up and down, and the ones to what was not fetched (the broken
        // link, robots.txt's private page, a level too deep) made absolute.
        let home = targets(byWget["127.0.0.1:\(port)/index.html"] ?? [])
        #expect(home.contains("style.css") && home.contains("s2/index.html#top"), sourceLocation: sourceLocation)
        #expect(home.contains("http://127.0.0.1:\(port)/missing.html"), sourceLocation: sourceLocation)
        #expect(targets(byWget["127.0.0.1:\(port)/s1/p1.html"] ?? []).contains("http://127.0.0.1:\(port)/s1/deep/d1.html"),
                sourceLocation: sourceLocation)
        #expect(compared > 10, sourceLocation: sourceLocation)
    }

    @Test func aConversionKilledHalfWayLeavesWholeFilesAndIsDoneByTheNextFarm() throws {
        let (farm, byWget, out) = try Self.convertingMirror()
        // A worker without a farm, so no watcher converts: the list is downloaded and delivered as fetched.
        let worker = try ChildProcess("farm-probe", ["work", "--spool", farm.spool.root, "--transfers", "2"])
        #expect(worker.wait(timeout: 300) == 0, "\(worker.standardError)")
        let fetched = Self.tree(out)
        #expect(!FileManager.default.fileExists(atPath: farm.spool.lists.convertedMarkPath(ofList: ListID.of(name: "127.0.0.1"))))

        // Killed after its third file: those are converted, the rest as fetched, none torn; no mark.
        let killed = try ChildProcess("farm-probe", ["convert-links", "--spool", farm.spool.root, "--list", "127.0.0.1"],
                                      environment: ["FARM_FAILPOINT": "convert.replaced@3"])
        killed.wait(timeout: 120)
        #expect(killed.process.terminationReason == .uncaughtSignal, "\(killed.standardError)")
        #expect(!FileManager.default.fileExists(atPath: farm.spool.lists.convertedMarkPath(ofList: ListID.of(name: "127.0.0.1"))))
        let half = Self.tree(out)
        #expect(Set(half.keys) == Set(fetched.keys), "left behind: \(Set(half.keys).subtracting(fetched.keys).sorted())")
        let changed = half.filter { fetched[$0.key] != $0.value }
        #expect(changed.count == 3, "\(changed.keys.sorted())")
        for (path, bytes) in changed {
            #expect(Self.targets(bytes) == Self.targets(byWget.files[path] ?? []), "\(path) is not whole")
        }

        // The next farm's watcher converts the list again, from the spool's bytes: the same as wget's.
        try farm.start(workers: 1)
        #expect(try Self.waitConverted(farm, "127.0.0.1"))
        Self.expectSameLinks(Self.tree(out), byWget.files, port: farm.origin.port)
    }
}
