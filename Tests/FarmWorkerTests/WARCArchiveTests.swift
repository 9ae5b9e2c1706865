import FarmSpool
import FarmTestSupport
@testable import FarmTransfer
import FarmWARC
@testable import FarmWorker
import Foundation
import Testing

/// A job's exchanges recorded as one group (SPEC §18: a redirect's hops, then the answer they led to), once for
/// each URL across redos and jobs, with the group torn by a kill in its middle: what the list's URL marks
/// (`warc/urls/<list>/<key>`) keep from being appended twice. Files read back with warcio (PyPI), which nobody here wrote.
@Suite struct WARCArchiveTests {
    /// An exchange of `url` answered `status` with a small body of its own, as a transfer captures it.
    static func exchange(_ url: String, status: Int, body: String) -> CapturedExchange {
        var captured = CapturedExchange(url: url)
        let path = URL(string: url)?.path ?? "/"
        Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: farm/0.1\r\n\r\n".utf8).withUnsafeBytes {
            captured.requestHead($0)
        }
        let lines = ["HTTP/1.1 \(status) X\r\n", "Content-Length: \(body.utf8.count)\r\n", "\r\n"]
        for line in lines { Array(line.utf8).withUnsafeBytes { captured.responseLine($0) } }
        Array(body.utf8).withUnsafeBytes { captured.unstoredBody($0) }
        return captured
    }

    static func archived(_ exchanges: [CapturedExchange]) -> [WARCArchive.Archived] {
        exchanges.map { WARCArchive.Archived(exchange: $0, body: .bytes($0.body)) }
    }

    /// Each response record of the finished files in `folder`, as `warcio index` lists them: URI and status.
    static func responses(_ folder: String) throws -> [(uri: String, status: String)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".warc.gz") }.sorted()
        var found: [(String, String)] = []
        for name in names {
            let result = try run("/usr/bin/env", ["warcio", "index", "-f", "warc-type,warc-target-uri,http:status",
                                                  folder + "/" + name], timeout: 120)
            try #require(result.status == 0, "warcio index: \(result.error)")
            for line in result.output.split(separator: "\n") {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
                if object["warc-type"] == "response" {
                    found.append((object["warc-target-uri"] ?? "", object["http:status"] ?? ""))
                }
            }
        }
        return found
    }

    @Test func aGroupTornByAKillIsCompletedWithTheURLsItLacks() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("hops.json", count: 1)
        let job = JobName(list: list, index: 0)
        let folder = fixture.appending("warc")
        let settings = WARCSettings(folder: folder)
        let urls = ["http://127.0.0.1:1/a", "http://127.0.0.1:1/b", "http://127.0.0.1:1/c"]
        let chain = [Self.exchange(urls[0], status: 301, body: "see /b\n"),
                     Self.exchange(urls[1], status: 302, body: "see /c\n"),
                     Self.exchange(urls[2], status: 404, body: "404 Not Found\n")]
        let first = WARCArchive(spool: fixture.spool)
        try first.record(Self.archived(chain), of: job, to: settings)
        first.close()
        // A kill after the first hop's two members: recovery keeps those, cuts the rest.
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first)
        let scan = try WARCScan.scan(path: folder + "/" + name)
        try #require(scan.members.count == 7)  // warcinfo, then a response and a request for each
        let handle = try #require(FileHandle(forWritingAtPath: folder + "/" + name))
        try handle.truncate(atOffset: UInt64(scan.members[3].lowerBound))
        try handle.close()
        #expect(try Self.responses(folder).map(\.uri) == [urls[0]])

        // The redo, another process: its fetch answered alike, and only the URLs not in are appended.
        let redo = WARCArchive(spool: fixture.spool)
        try redo.record(Self.archived(chain), of: job, to: settings)
        redo.close()
        var found = try Self.responses(folder)
        #expect(found.map { "\($0.uri) \($0.status)" }.sorted() == zip(urls, ["301", "302", "404"]).map { "\($0) \($1)" })

        // Once more: every URL is in, nothing is appended (no file is even made).
        let again = WARCArchive(spool: fixture.spool)
        try again.record(Self.archived(chain), of: job, to: settings)
        again.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 2)

        // The job fetched again with success (`farm retry`): the error's URL gets the resource's answer in place
        // of the error's (dropped from its file, which holds the hops before it: they stay, recorded once), and
        // fetched once more, nothing changes.
        let retried = [Self.exchange(urls[0], status: 301, body: "see /b\n"),
                       Self.exchange(urls[1], status: 302, body: "see /c\n"),
                       Self.exchange(urls[2], status: 200, body: "the resource\n")]
        for _ in 0..<2 {
            let archive = WARCArchive(spool: fixture.spool)
            try archive.record(Self.archived(retried), of: job, to: settings)
            archive.close()
        }
        found = try Self.responses(folder)
        #expect(found.map(\.uri).sorted() == urls, "\(found)")
        #expect(found.filter { $0.uri == urls[2] }.map(\.status) == ["200"])
        let drops = (try? FileManager.default.contentsOfDirectory(atPath: fixture.spool.warc.drops(ofList: list))) ?? []
        #expect(drops.isEmpty, "\(drops)")
        let check = try run("/usr/bin/env", ["warcio", "check", "-v"] + (try FileManager.default
            .contentsOfDirectory(atPath: folder).sorted().map { folder + "/" + $0 }), timeout: 120)
        #expect(check.status == 0 && !check.output.contains("fail"), "\(check.output)\(check.error)")
    }

    /// Two jobs of one list whose fetches reach one URL (a redirect to a page the list also has): the URL's
    /// response is recorded once, by the first; the second records only its own hop.
    @Test func aURLTwoJobsFetchIsRecordedOnce() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("two.json", count: 2)
        let folder = fixture.appending("warc")
        let settings = WARCSettings(folder: folder)
        let archive = WARCArchive(spool: fixture.spool)
        try archive.record(Self.archived([Self.exchange("http://127.0.0.1:1/dir/", status: 200, body: "page")]),
                           of: JobName(list: list, index: 0), to: settings)
        try archive.record(Self.archived([Self.exchange("http://127.0.0.1:1/dir", status: 301, body: "see /dir/\n"),
                                          Self.exchange("http://127.0.0.1:1/dir/", status: 200, body: "page")]),
                           of: JobName(list: list, index: 1), to: settings)
        archive.close()
        let found = try Self.responses(folder).map { "\($0.uri) \($0.status)" }.sorted()
        #expect(found == ["http://127.0.0.1:1/dir 301", "http://127.0.0.1:1/dir/ 200"])
    }

    /// A mark written before marks were by URL (three lines: file, offset, response ID) still stops the job's redo.
    @Test func aMarkOfTheOlderFormStillAnswersTheJob() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("old.json", count: 1)
        let job = JobName(list: list, index: 0)
        let folder = fixture.appending("warc")
        let url = "http://127.0.0.1:1/x.png"
        let writer = try WARCWriter(directory: folder, software: "farm/0.0")
        let written = try writer.write(WARCExchange(targetURI: url, ipAddress: nil,
                                                    request: WARCBlock(head: Array("GET /x.png HTTP/1.1\r\n\r\n".utf8)),
                                                    response: WARCBlock(head: Array("HTTP/1.1 200 OK\r\n\r\n".utf8),
                                                                        body: .bytes([1, 2, 3]))))
        try writer.close()
        try FileManager.default.createDirectory(atPath: fixture.spool.warc.marks, withIntermediateDirectories: true)
        try Data("\(written.file)\n\(written.offset)\n\(written.responseID.text)\n".utf8)
            .write(to: URL(fileURLWithPath: fixture.spool.warc.mark(job)))
        let archive = WARCArchive(spool: fixture.spool)
        try archive.record(Self.archived([Self.exchange(url, status: 200, body: "x")]), of: job,
                           to: WARCSettings(folder: folder))
        archive.close()
        #expect(try Self.responses(folder).map(\.uri) == [url])
    }

    /// An error recorded by one worker, whose file it still has open, then the resource by another (`farm retry`
    /// taken by a second worker process, here a second archive): the other may not touch that file, so the error
    /// stays (noted to drop) until its worker finishes the file as it ends; then it goes, with its request, and
    /// the files hold the resource's response only. Its neighbour in that file keeps its record, found by its ID
    /// once the compaction moved it.
    @Test func anErrorInAFileAnotherWorkerHasOpenIsDroppedWhenThatWorkerEnds() throws {
        let fixture = try StatusFixture()
        let list = try fixture.addList("retried.json", count: 2)
        let folder = fixture.appending("warc")
        let settings = WARCSettings(folder: folder)
        let missing = "http://127.0.0.1:1/later.png", kept = "http://127.0.0.1:1/kept.png"
        let first = WARCArchive(spool: fixture.spool)
        try first.record(Self.archived([Self.exchange(missing, status: 404, body: "404 Not Found\n")]),
                         of: JobName(list: list, index: 0), to: settings)
        try first.record(Self.archived([Self.exchange(kept, status: 200, body: "kept")]),
                         of: JobName(list: list, index: 1), to: settings)

        let second = WARCArchive(spool: fixture.spool)
        try second.record(Self.archived([Self.exchange(missing, status: 200, body: "the resource\n")]),
                          of: JobName(list: list, index: 0), to: settings)
        second.close()
        let drops = fixture.spool.warc.drops(ofList: list)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: drops)) ?? []).count == 1)
        #expect(try Self.responses(folder).map { "\($0.uri) \($0.status)" } == ["\(missing) 200"])  // finished files only

        first.close()
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: drops)) ?? []).isEmpty)
        #expect(try Self.responses(folder).map { "\($0.uri) \($0.status)" }.sorted() == ["\(kept) 200", "\(missing) 200"])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names.count == 2 && names.allSatisfy { $0.hasSuffix(".warc.gz") }, "\(names)")
        let check = try run("/usr/bin/env", ["warcio", "check", "-v"] + names.map { folder + "/" + $0 }, timeout: 120)
        #expect(check.status == 0 && !check.output.contains("fail"), "\(check.output)\(check.error)")

        // The neighbour fetched again (a redo): its record moved, it is found, nothing is appended.
        let third = WARCArchive(spool: fixture.spool)
        try third.record(Self.archived([Self.exchange(kept, status: 200, body: "kept")]),
                         of: JobName(list: list, index: 1), to: settings)
        third.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == names)
    }
}
