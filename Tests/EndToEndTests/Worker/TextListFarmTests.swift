import FarmDedup
import FarmLists
import FarmSpool
import FarmTestSupport
import FarmZip
import Foundation
import SystemPackage
import Testing

/// SPEC §15's text lists, end to end: the real `farm add` (of a file, a zip, standard input) and a real farm
/// downloading from a real origin on 127.0.0.1; bytes checked on disk.
@Suite(.serialized) struct TextListFarmTests {
    /// A distinct JPEG for each `n`, so a mix-up shows.
    private func body(_ n: Int) throws -> [UInt8] { try JPEGFixture.quadrants(width: 16 + 8 * n, height: 16) }

    private func digest(_ bytes: [UInt8], in dir: TemporaryDirectory) throws -> String {
        let path = dir.appending("digest-\(bytes.count)")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try Dedup.digest(ofFile: path)
    }

    private func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map(Array.init)
    }

    /// The bytes of resource `index` of list `name`, as downloaded into the spool.
    private func downloaded(_ farm: RunningFarm, list name: String, index: Int) throws -> [UInt8]? {
        let sidecar = try #require(farm.spool.sidecars.last(JobName(list: ListID.of(name: name), index: index)))
        return contents(try #require(sidecar.file, "\(sidecar)"))
    }

    @Test func aTextListWithCommentsAMirrorAndOptionsIsDownloadedAndDelivered() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let bodies = try (0..<3).map(body)
        farm.origin.serve(path: "/a/first.jpg", bytes: bodies[0])
        // The mirror line's first URL is gone: only its mirror can give the resource its bytes.
        farm.origin.serve(path: "/b/download", bytes: bodies[1])
        farm.origin.serve(path: "/c/third.jpg", bytes: bodies[2])
        let checksum = try digest(bodies[2], in: farm.dir)
        let list = """
            # exported by a script; blank lines and comments are skipped

            \(farm.origin.url(for: "/a/first.jpg"))
            \(farm.origin.url(for: "/gone/second.jpg"))\t\(farm.origin.url(for: "/b/download"))
              out=second.jpg
            # the third is checked against its digest and delivered under another name
            \(farm.origin.url(for: "/c/third.jpg"))
              sha256=\(checksum.uppercased())
              out=renamed.jpg

            """
        let path = farm.dir.appending("urls.txt")
        try Data(list.utf8).write(to: URL(fileURLWithPath: path))
        let out = farm.dir.appending("out")
        let added = try farm.must(["add", path, "--out", out])
        #expect(added.contains("added 1 list(s), 3 resource(s): urls.txt"), "\(added)")

        // The same records as an object with "urls", "out" and "sha256" makes (SPEC §14, §15).
        let id = ListID.of(name: "urls.txt")
        let table = try #require(farm.spool.lists.resources(ofList: id))
        #expect(table.map(\.url) == ["/a/first.jpg", "/gone/second.jpg", "/c/third.jpg"].map { farm.origin.url(for: $0) })
        #expect(table.map(\.mirrors) == [[], [farm.origin.url(for: "/b/download")], []])
        #expect(table.map(\.out) == [nil, "second.jpg", "renamed.jpg"])
        #expect(table.map(\.sha256) == [nil, nil, checksum])

        try farm.start(workers: 2)
        try RequestOptionsTests.waitUntilEnded(3, farm)
        for index in 0..<3 { #expect(try downloaded(farm, list: "urls.txt", index: index) == bodies[index], "\(index)") }
        // Delivered by name below the list's folder, which a .txt names as a .json does (without it).
        for (name, bytes) in [("first.jpg", bodies[0]), ("second.jpg", bodies[1]), ("renamed.jpg", bodies[2])] {
            #expect(contents(out + "/urls/" + name) == bytes, "\(name)")
        }
        #expect(farm.origin.requests(for: "/gone/second.jpg").allSatisfy { $0.status == 404 })
    }

    @Test func badLinesAreRefusedByNumberAndNothingIsAdded() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let path = farm.dir.appending("urls.txt")
        try Data("https://example.com/a.jpg\n# fine so far\nhttps://example.com/b.jpg\n  referer=x\n".utf8)
            .write(to: URL(fileURLWithPath: path))
        let result = try farm.farm(["add", path])
        #expect(result.status == 2, "\(result)")
        #expect(result.error.contains(#"urls.txt: line 4: unknown option "referer"= (the options are out= and sha256=)"#),
                "\(result.error)")
        #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
        #expect(farm.spool.list(ListID.of(name: "urls.txt")) == nil)
        #expect(farm.counts.values.reduce(0, +) == 0, "\(farm.counts)")

        // JSON with a space before it is still JSON, refused where its fault is.
        try Data(" [\"https://example.com/a.jpg\",]".utf8).write(to: URL(fileURLWithPath: path))
        let json = try farm.farm(["add", path])
        #expect(json.status == 2, "\(json)")
        #expect(json.error.contains("urls.txt: malformed JSON at line 1, column 31"), "\(json.error)")
        #expect(farm.counts.values.reduce(0, +) == 0, "\(farm.counts)")
    }

    @Test func aZipHoldsAJSONListAndATextList() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let bodies = try (0..<4).map(body)
        for (n, bytes) in bodies.enumerated() { farm.origin.serve(path: "/z/\(n).jpg", bytes: bytes) }
        let urls = (0..<4).map { farm.origin.url(for: "/z/\($0).jpg") }
        let zip = farm.dir.appending("lists.zip")
        try ZipWriter.write(path: zip, entries: [
            ("lists/Set 1.json", Array("[\"\(urls[0])\", \"\(urls[1])\"]".utf8)),
            ("lists/more.txt", Array("# two more\n\(urls[2])\n\n\(urls[3])\n".utf8)),
            ("README.txt", Array("Lists of the Z set, exported on Monday.\n".utf8)),
        ])
        let added = try farm.must(["add", zip])
        #expect(added.contains("added 2 list(s), 4 resource(s): more.txt, Set 1.json"), "\(added)")
        try farm.start(workers: 2)
        try RequestOptionsTests.waitUntilEnded(4, farm)
        for index in 0..<2 {
            #expect(try downloaded(farm, list: "Set 1.json", index: index) == bodies[index], "Set 1.json \(index)")
            #expect(try downloaded(farm, list: "more.txt", index: index) == bodies[2 + index], "more.txt \(index)")
        }
    }

    @Test func farmAddDashReadsTheListFromStandardInput() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let bodies = try (0..<2).map(body)
        for (n, bytes) in bodies.enumerated() { farm.origin.serve(path: "/in/\(n).jpg", bytes: bytes) }
        let list = Array("# piped\n\(farm.origin.url(for: "/in/0.jpg"))\n\(farm.origin.url(for: "/in/1.jpg"))\n".utf8)
        let added = try farm.farm(["add", "-"], input: list)
        #expect(added.status == 0, "\(added)")
        let names = farm.spool.lists.ids().compactMap { farm.spool.list($0)?.name }
        let name = try #require(names.first, "\(added)")
        #expect(name.hasPrefix("stdin-") && added.output.contains("2 resource(s): \(name)"), "\(name): \(added)")
        // The same list piped again adds nothing; another one is a list of its own.
        let again = try farm.farm(["add", "-"], input: list)
        #expect(again.status == 0 && again.output.contains("already in the spool, nothing added: \(name)"), "\(again)")
        // A JSON list piped in, with a bad line's counterpart: refused where its fault is, nothing added.
        let bad = try farm.farm(["add", "-"], input: Array("\(farm.origin.url(for: "/in/0.jpg"))\nnot a URL\n".utf8))
        #expect(bad.status == 2 && bad.error.contains(#"stdin: line 2: not an http(s) URL: "not a URL""#), "\(bad)")
        let json = try farm.farm(["add", "-"], input: Array("[\"\(farm.origin.url(for: "/in/1.jpg"))\"]".utf8))
        #expect(json.status == 0, "\(json)")
        #expect(farm.spool.lists.ids().count == 2)

        try farm.start(workers: 2)
        try RequestOptionsTests.waitUntilEnded(3, farm)
        for index in 0..<2 { #expect(try downloaded(farm, list: name, index: index) == bodies[index], "\(index)") }
    }
}
