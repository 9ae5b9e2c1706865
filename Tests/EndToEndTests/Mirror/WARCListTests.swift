import Crypto
import FarmJSON
import FarmLists
import FarmOrigin
import FarmSpool
import FarmStatus
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `farm add … --warc DIR` end to end (SPEC §18): a real farm fetches a site from a real origin on 127.0.0.1 and
/// records it as WARC files, which tools nobody here wrote then read: warcio checks every record and its digests
/// and indexes them (exactly the URLs fetched, one response each), Python's warcio reads each payload back (the
/// origin's bytes), and pywb replays a page from the files. Workers killed with SIGKILL while they hold jobs,
/// round after round, leave no torn record and still one response per URL.
@Suite(.serialized) struct WARCListTests {
    /// A site of `pages` pages in a ring from /index.html, each with an image of its own; the home page has a
    /// stylesheet whose `url()` names an image, a broken link, and a link to /old.html, which redirects to the
    /// first page (a URL two jobs reach). Returns the bytes of every path that exists.
    @discardableResult
    static func serveSite(_ origin: Origin, pages: Int) -> [String: [UInt8]] {
        var bodies: [String: [UInt8]] = [:]
        func serve(_ path: String, _ bytes: [UInt8], _ type: String) {
            origin.serve(path: path, bytes: bytes, contentType: type)
            bodies[path] = bytes
        }
        func page(_ path: String, _ body: String) {
            serve(path, Array("<!DOCTYPE html>\n<html><body>\n\(body)\n</body></html>\n".utf8), "text/html")
        }
        let links = (1...pages).map { "<a href=\"p\($0).html\">\($0)</a>" }.joined(separator: " ")
        page("/index.html", """
            <head><link rel="stylesheet" href="style.css"></head><img src="img/logo.png">
            \(links) <a href="missing.html">broken</a> <a href="old.html">moved</a>
            """)
        origin.inject(.redirect(to: "/p1.html", status: 301), at: "/old.html")
        serve("/style.css", Array("body { background: url(img/bg.png) }".utf8), "text/css")
        // PNG magic, then bytes of their own: a mix-up of two bodies shows.
        func image(_ path: String) {
            serve(path, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array("IMG \(path) ".utf8)
                + (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ path.utf8.count) }, "image/png")
        }
        image("/img/logo.png")
        image("/img/bg.png")
        for number in 1...pages {
            page("/p\(number).html", """
                <img src="img/p\(number).png"> <a href="p\(number % pages + 1).html">next</a> <a href="index.html">home</a>
                """)
            image("/img/p\(number).png")
        }
        return bodies
    }

    /// The WARC files of `folder`, finished and open.
    static func files(_ folder: String) -> (finished: [String], open: [String]) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        return (names.filter { $0.hasSuffix(".warc.gz") }.map { folder + "/" + $0 },
                names.filter { $0.hasSuffix(".open") }.map { folder + "/" + $0 })
    }

    /// One record as Python's warcio reads it: its type, target URI, ID, WARC-Concurrent-To, date, HTTP
    /// status, and the SHA-256 of its payload as stored (the body as received).
    struct Record: Decodable {
        let type: String
        let uri: String?
        let id: String
        let concurrent: String?
        let date: String
        let status: String?
        let sha256: String
    }

    /// Every record of `paths`, read by warcio's ArchiveIterator (which checks each gzip member as it goes).
    static func records(_ paths: [String]) throws -> [Record] {
        let script = """
            import sys, json, hashlib
            from warcio.archiveiterator import ArchiveIterator
            for path in sys.argv[1:]:
                with open(path, 'rb') as f:
                    for r in ArchiveIterator(f):
                        h = r.rec_headers
                        payload = r.raw_stream.read()
                        print(json.dumps({'type': r.rec_type, 'uri': h.get_header('WARC-Target-URI'),
                                          'id': h.get_header('WARC-Record-ID'),
                                          'concurrent': h.get_header('WARC-Concurrent-To'),
                                          'date': h.get_header('WARC-Date'),
                                          'status': r.http_headers.get_statuscode() if r.http_headers else None,
                                          'sha256': hashlib.sha256(payload).hexdigest()}))
            """
        let result = try run("/usr/bin/env", ["python3", "-c", script] + paths, timeout: 300)
        try #require(result.status == 0, "warcio: \(result.error)")
        return try result.output.split(separator: "\n").map { line in
            try JSONDecoder().decode(Record.self, from: Data(line.utf8))
        }
    }

    /// `warcio check -v` of `paths`: every record's block and payload digests verified.
    static func check(_ paths: [String]) throws {
        let result = try run("/usr/bin/env", ["warcio", "check", "-v"] + paths, timeout: 300)
        #expect(result.status == 0, "warcio check: \(result.output)\(result.error)")
        #expect(result.output.contains("digest pass") && !result.output.contains("fail"), "\(result.output)")
    }

    /// The URLs `warcio index` lists as response records, each as many times as it does.
    static func indexedResponses(_ paths: [String]) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for path in paths {
            let result = try run("/usr/bin/env", ["warcio", "index", "-f", "warc-type,warc-target-uri", path], timeout: 300)
            try #require(result.status == 0, "warcio index \(path): \(result.error)")
            for line in result.output.split(separator: "\n") {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
                if object["warc-type"] == "response", let uri = object["warc-target-uri"] { counts[uri, default: 0] += 1 }
            }
        }
        return counts
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: Data(bytes)).map { String(format: "%02x", $0) }.joined()
    }

    /// The status of the last whole answer the origin gave to a GET of each path since its log was cleared
    /// (a body, a redirect, an error): what a finished list's WARC holds one response record of (SPEC §18).
    static func answered(_ origin: Origin) -> [String: Int] {
        var last: [String: Int] = [:]
        for request in origin.requests.sorted(by: { $0.sequence < $1.sequence })
        where request.method == "GET" && request.complete {
            if let status = request.status { last[request.path] = status }
        }
        return last
    }

    /// What every test checks once the list is finished and the farm stopped: the files finished (no `.open`
    /// left), clean for warcio, one response record for each URL the origin answered, with its last status and,
    /// for a 200, the origin's bytes, and one request record for it, concurrent to that response.
    static func checkArchive(_ folder: String, origin: Origin, bodies: [String: [UInt8]]) throws -> [Record] {
        let (finished, open) = files(folder)
        #expect(open.isEmpty, "left open: \(open)")
        try #require(!finished.isEmpty)
        try check(finished)
        let served = answered(origin)
        let indexed = try indexedResponses(finished)
        let servedURLs = Set(served.keys.map { origin.url(for: $0) })
        let onlyIndexed = Set(indexed.keys).subtracting(servedURLs).sorted()
        let onlyServed = servedURLs.subtracting(indexed.keys).sorted()
        #expect(Set(indexed.keys) == servedURLs, "only indexed: \(onlyIndexed); only served: \(onlyServed)")
        #expect(indexed.filter { $0.value != 1 }.isEmpty, "recorded more than once: \(indexed.filter { $0.value != 1 })")
        let records = try records(finished)
        let responses = records.filter { $0.type == "response" }
        for response in responses {
            let path = try #require(response.uri.flatMap { URL(string: $0)?.path })
            #expect(response.status == served[path].map(String.init), "status of \(path)")
            if response.status == "200" {
                #expect(response.sha256 == sha256(bodies[path] ?? []), "payload of \(path) is not the origin's")
            }
        }
        let requests = records.filter { $0.type == "request" }
        #expect(requests.count == responses.count)
        #expect(Set(requests.compactMap(\.concurrent)) == Set(responses.map(\.id)))
        #expect(records.filter { $0.type == "warcinfo" }.count == finished.count)
        return records
    }

    /// Waits until list `name` has no queued or active job and every resource is done or failed.
    static func waitFinished(_ farm: RunningFarm, _ name: String, timeout: Double = 300) throws -> ListStatus? {
        var last: ListStatus?
        _ = poll(timeout: timeout, every: 0.2) {
            let output = try? farm.must(["status", "--json"])
            last = output.flatMap { JSON.decode(StatusDocument.self, from: Array($0.utf8)) }?.lists.first { $0.name == name }
            guard let list = last else { return false }
            return list.total > 1 && list.done + list.failed == list.total && farm.counts[.queued, default: 0] == 0
                && farm.counts[.active, default: 0] == 0
        }
        return last
    }

    @Test func aRecursiveListIsRecordedOnceAndReplays() throws {
        let farm = try RunningFarm()
        let bodies = Self.serveSite(farm.origin, pages: 8)
        let folder = farm.dir.appending("warc")
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "inf", "--no-robots",
                       "--name", "site", "--warc", folder])
        try farm.start(workers: 2, transfers: 2)
        let list = try #require(try Self.waitFinished(farm, "site"))
        #expect(list.failed == 1 && list.done == list.total - 1)
        try farm.must(["stop"])
        let records = try Self.checkArchive(folder, origin: farm.origin, bodies: bodies)
        // The broken link's 404 and the moved page's 301 too (SPEC §18: every request and response).
        #expect(records.filter { $0.type == "response" }.count == list.total)
        #expect(records.contains { $0.type == "response" && $0.uri == farm.origin.url(for: "/missing.html") && $0.status == "404" })
        #expect(records.contains { $0.type == "response" && $0.uri == farm.origin.url(for: "/old.html") && $0.status == "301" })
        try Self.replay("/p3.html", of: records, in: folder, origin: farm.origin, bodies: bodies)
    }

    @Test func aPlainListIsRecordedToo() throws {
        let farm = try RunningFarm()
        let bodies = Self.serveSite(farm.origin, pages: 3)
        let paths = bodies.keys.filter { $0.hasSuffix(".png") }.sorted()
        let manifest = farm.dir.appending("pictures.json")
        try JSONSerialization.data(withJSONObject: paths.map { farm.origin.url(for: $0) })
            .write(to: URL(fileURLWithPath: manifest))
        let folder = farm.dir.appending("warc")
        try farm.must(["add", manifest, "--warc", folder, "--warc-max-size", "1M"])
        try farm.start(workers: 1, transfers: 2)
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.must(["stop"])
        let records = try Self.checkArchive(folder, origin: farm.origin, bodies: bodies)
        #expect(records.filter { $0.type == "response" }.count == paths.count)
    }

    /// The state a worker killed after its records were appended and before its job's completion leaves (the
    /// records in a file, the job not done), made exactly: every job of a finished list sent back to the queue
    /// by the spool's own redo (as after a reboot that lost its outputs), then fetched again by a farm started
    /// again. Each URL is fetched twice and recorded once: the second fetch finds its job's mark and its record.
    @Test func aJobRedoneAfterItsRecordsWereAppendedAppendsNothing() throws {
        try Self.redoEveryJob(recorded: true)
    }

    /// As above, with the WARC files gone (a torn record cut off by recovery, say) and the marks kept: a mark
    /// whose record is not in its file stops nothing, and the redo records each URL once.
    @Test func aJobRedoneWhoseRecordsAreGoneRecordsAgain() throws {
        try Self.redoEveryJob(recorded: false)
    }

    /// A list of pictures recorded, every job redone (`recorded` false: its WARC files removed first), the
    /// farm started again: each URL fetched twice, recorded once.
    static func redoEveryJob(recorded: Bool) throws {
        let farm = try RunningFarm()
        let bodies = Self.serveSite(farm.origin, pages: 3)
        let paths = bodies.keys.filter { $0.hasSuffix(".png") }.sorted()
        let manifest = farm.dir.appending("pictures.json")
        try JSONSerialization.data(withJSONObject: paths.map { farm.origin.url(for: $0) })
            .write(to: URL(fileURLWithPath: manifest))
        let folder = farm.dir.appending("warc")
        try farm.must(["add", manifest, "--warc", folder])
        try farm.start(workers: 1, transfers: 2)
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.must(["stop"])
        if !recorded {
            for file in Self.files(folder).finished { try FileManager.default.removeItem(atPath: file) }
        }
        // Its stored download kept, as a worker killed between storing and completing leaves it (and with it the
        // URL's record, which download once would serve the redo from).
        let id = ListID.of(name: "pictures.json")
        for index in 0..<paths.count {
            let job = JobName(list: id, index: index)
            #expect(try Lists(farm.spool).redo(farm.spool.finishedPath(job, .done), job: job, outputs: []))
        }
        #expect(farm.counts == [.queued: paths.count])
        try farm.start(workers: 1, transfers: 2)
        #expect(farm.waitUntilAllDone(paths.count))
        try farm.must(["stop"])
        // Fetched twice each: the redo's fetch was not served from the stored bytes.
        for path in paths { #expect(farm.origin.served(path).bodies == 2, "\(path): \(farm.origin.served(path))") }
        let records = try Self.checkArchive(folder, origin: farm.origin, bodies: bodies)
        #expect(records.filter { $0.type == "response" }.count == paths.count)
    }

    /// Download once (SPEC §7) serves a URL another list of the spool downloaded from its stored bytes: not a
    /// list with --warc, whose record is its own response. Each URL is fetched again and recorded.
    @Test func aURLAnotherListDownloadedIsFetchedAgainForItsRecord() throws {
        let farm = try RunningFarm()
        let bodies = Self.serveSite(farm.origin, pages: 3)
        let paths = bodies.keys.filter { $0.hasSuffix(".png") }.sorted()
        for name in ["plain", "archived"] {
            try JSONSerialization.data(withJSONObject: paths.map { farm.origin.url(for: $0) })
                .write(to: URL(fileURLWithPath: farm.dir.appending(name + ".json")))
        }
        try farm.must(["add", farm.dir.appending("plain.json")])
        try farm.start(workers: 1, transfers: 2)
        #expect(farm.waitUntilAllDone(paths.count))
        let folder = farm.dir.appending("warc")
        try farm.must(["add", farm.dir.appending("archived.json"), "--warc", folder])
        #expect(farm.waitUntilAllDone(2 * paths.count))
        try farm.must(["stop"])
        for path in paths { #expect(farm.origin.served(path).bodies == 2, "\(path): \(farm.origin.served(path))") }
        let records = try Self.checkArchive(folder, origin: farm.origin, bodies: bodies)
        #expect(records.filter { $0.type == "response" }.count == paths.count)
    }

    @Test func aFolderThatCannotBeWrittenIsRefusedAtAdd() throws {
        let farm = try RunningFarm()
        Self.serveSite(farm.origin, pages: 1)
        let file = farm.dir.appending("a-file")
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let result = try farm.farm(["add", farm.origin.url(for: "/index.html"), "--recursive", "--warc", file + "/warc"])
        #expect(result.status == 2)
        #expect(result.error.split(separator: "\n").count == 1 && result.error.contains("cannot write WARC files"),
                "\(result.error)")
        let status = try farm.must(["status", "--json"])
        #expect(JSON.decode(StatusDocument.self, from: Array(status.utf8))?.lists.isEmpty == true)
        // --connections asks for pieces, which a list recorded as WARC does not fetch in.
        let pieces = try farm.farm(["add", farm.origin.url(for: "/index.html"), "--recursive", "--warc",
                                    farm.dir.appending("warc"), "--connections", "4"])
        #expect(pieces.status == 2 && pieces.error.contains("one connection"), "\(pieces.error)")
    }

    @Test func workersKilledWhileHoldingJobsLeaveOneResponsePerURL() throws {
        let farm = try RunningFarm()
        let bodies = Self.serveSite(farm.origin, pages: 40)
        // Slow bodies, so that each kill lands on workers holding jobs, some mid-transfer.
        for path in bodies.keys { farm.origin.inject(.throttle(bytesPerSecond: 4000), at: path) }
        let folder = farm.dir.appending("warc")
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "inf", "--no-robots",
                       "--name", "site", "--warc", folder])
        try farm.start(workers: 3, transfers: 2, lease: 2)
        var killed = 0
        for round in 0..<6 {
            let before = farm.counts[.done, default: 0]
            #expect(poll(timeout: 180, every: 0.05) { farm.counts[.done, default: 0] >= before + 5 })
            let holders = farm.pids(.worker).filter { pid in farm.spool.activeJobs().contains { $0.owner.pid == pid } }
            for pid in holders.prefix(2) {
                kill(pid, SIGKILL)
                killed += 1
            }
            // The other roles too: the watcher each round, the supervisor (which finishes dead workers' files)
            // every other one; a surviving process starts a new supervisor.
            for pid in farm.pids(.watcher) + (round % 2 == 1 ? farm.pids(.supervisor) : []) { kill(pid, SIGKILL) }
            // A supervisor back (started by a surviving process within seconds), or, every process of the farm
            // killed, started again as a user would.
            if !poll(timeout: 20, every: 0.1, { !farm.pids(.supervisor).isEmpty }) {
                try farm.start(workers: 3, transfers: 2, lease: 2)
            }
        }
        #expect(killed >= 6)
        let list = try #require(try Self.waitFinished(farm, "site", timeout: 600))
        #expect(list.failed == 1 && list.done == list.total - 1)
        try farm.must(["stop"])
        let records = try Self.checkArchive(folder, origin: farm.origin, bodies: bodies)
        #expect(records.filter { $0.type == "response" }.count == list.total)
    }

    /// Replays `path` from the WARC files with pywb (`wb-manager` makes a collection of them, `wayback` serves
    /// it on a free port, ended by its pid): its original bytes (`id_`) are the origin's.
    static func replay(_ path: String, of records: [Record], in folder: String, origin: Origin,
                       bodies: [String: [UInt8]]) throws {
        guard let wayback = which("wayback"), let manager = which("wb-manager") else {
            Issue.record("pywb is not installed (pip install pywb): no replay checked")
            return
        }
        let url = origin.url(for: path)
        let response = try #require(records.first { $0.type == "response" && $0.uri == url })
        let root = TemporaryDirectory("farm-pywb")
        let made = try run("/bin/sh", ["-c", "cd \"$0\" && \"$1\" init farm && \"$1\" add farm \"$2\"/*.warc.gz",
                                       root.path, manager, folder], timeout: 120)
        try #require(made.status == 0, "wb-manager: \(made.output)\(made.error)")
        let port = try freePort()
        let server = try ChildProcess("/bin/sh", ["-c", "cd \"$0\" && exec \"$1\" -p \"$2\" -b 127.0.0.1",
                                                 root.path, wayback, String(port)])
        defer {
            server.kill()
            _ = server.wait(timeout: 10)
        }
        let timestamp = response.date.filter(\.isNumber)
        let replayURL = "http://127.0.0.1:\(port)/farm/\(timestamp)id_/\(url)"
        var body: [UInt8] = []
        let answered = poll(timeout: 120, every: 0.5) {
            guard let result = try? run("/usr/bin/curl", ["-s", "-f", "--noproxy", "*", "-o", root.appending("page"), replayURL],
                                        timeout: 30), result.status == 0 else { return false }
            body = (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: root.appending("page"))))) ?? []
            return true
        }
        #expect(answered, "pywb did not answer \(replayURL): \(server.standardError.suffix(2000))")
        #expect(body == bodies[path], "pywb replayed \(body.count) bytes, not the origin's \(bodies[path]?.count ?? 0)")
    }

    /// The path of `name` in PATH, or nil.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
