import FarmJSON
import FarmLists
import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Testing

/// SPEC §12's requests: a list's headers, cookies, user agent and proxy go with every request made for
/// it (its manifest, its resources, `farm sync`), never to another host after a redirect, and their
/// values appear nowhere but in the list's file of mode 0600. A real farm, a real origin that refuses
/// what lacks them, a second host on 127.0.0.2 and a real proxy.
@Suite(.serialized) struct RequestOptionsTests {
    static let token = "Bearer s3cret-T0KEN-4711"
    static let apiKey = "k3y-VALUE-0815"
    static let cookie = "c00kie-VALUE-2342"
    static let agent = "farm-test-agent/1.0"

    @Test func headersCookiesAndAgentGoWithEveryRequestOfTheListAndNoSecretShows() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let other = Origin(host: "127.0.0.2")
        try other.start()
        defer { other.stop() }
        let a = try JPEGFixture.quadrants(width: 32, height: 32), b = try JPEGFixture.quadrants(width: 48, height: 16)
        let c = try JPEGFixture.quadrants(width: 16, height: 40)
        let origin = farm.origin
        origin.serve(path: "/api/a.jpg", bytes: a)
        origin.serve(path: "/gallery/b.jpg", bytes: b)
        other.serve(path: "/landed.jpg", bytes: c)
        origin.inject(.redirect(to: other.url(for: "/landed.jpg")), at: "/hop.jpg")
        let urls = [origin.url(for: "/api/a.jpg"), origin.url(for: "/gallery/b.jpg"), origin.url(for: "/hop.jpg")]
        origin.serve(path: "/api/Private.json", bytes: JSON.encode(urls))
        for path in ["/api/Private.json", "/api/a.jpg"] {
            origin.require("authorization", containing: Self.token, orAnswer: 401, at: path)
        }
        origin.require("cookie", containing: "session=" + Self.cookie, orAnswer: 403, at: "/gallery/b.jpg")
        let cookies = farm.dir.appending("cookies.txt")
        try Data("""
            # Netscape HTTP Cookie File
            127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\t\(Self.cookie)
            #HttpOnly_127.0.0.1\tFALSE\t/gallery\tFALSE\t0\ttheme\tdark

            """.utf8).write(to: URL(fileURLWithPath: cookies))
        let headers = farm.dir.appending("headers.txt")
        try Data("X-Api-Key: \(Self.apiKey)\n".utf8).write(to: URL(fileURLWithPath: headers))

        try farm.must(["add", origin.url(for: "/api/Private.json"), "--header", "Authorization: \(Self.token)",
                       "--header", "@" + headers, "--cookies", cookies, "--user-agent", Self.agent])
        let list = ListID.of(name: "Private.json")
        try farm.start(workers: 2, transfers: 2)
        try Self.waitUntilEnded(3, farm)
        for (index, bytes) in [a, b, c].enumerated() {
            let sidecar = try #require(farm.spool.sidecars.last(JobName(list: list, index: index)))
            let file = try #require(sidecar.file, "\(index): \(sidecar)")
            let same = Array(try Data(contentsOf: URL(fileURLWithPath: file))) == bytes
            #expect(same, "\(index): the bytes on disk differ from the origin's")
        }

        let mine = origin.requests.filter { $0.method == "GET" }
        for request in mine {
            #expect(request.header("user-agent") == [Self.agent], "\(request): \(request.headers)")
            #expect(request.header("authorization") == [Self.token], "\(request)")
            #expect(request.header("x-api-key") == [Self.apiKey], "\(request)")
        }
        let gallery = try #require(mine.first { $0.path == "/gallery/b.jpg" })
        #expect(gallery.status == 200 && gallery.header("cookie").first?.contains("theme=dark") == true,
                "\(gallery): \(gallery.headers)")
        let landed = other.requests.filter { $0.path == "/landed.jpg" }
        #expect(!landed.isEmpty)
        for request in landed {
            #expect(request.header("authorization").isEmpty && request.header("cookie").isEmpty,
                    "the other host was sent \(request.headers)")
        }

        // `farm sync` asks again with them: the manifest (401 without) and the conditional requests.
        let before = origin.requests.count
        let synced = try farm.farm(["sync", "Private.json"])
        #expect(synced.status == 0, "\(synced)")
        let again = origin.requests.dropFirst(before).filter { $0.method == "GET" }
        #expect(again.contains { $0.path == "/api/Private.json" && $0.status == 200 }, "\(again)")
        #expect(again.contains { $0.path == "/gallery/b.jpg" && $0.status == 304 }, "\(again)")
        #expect(again.allSatisfy { $0.header("authorization") == [Self.token] }, "\(again)")

        let status = try farm.must(["status", "Private.json", "--json"])
        let request = try #require(try JSONParser.parse(Array(status.utf8))["request"], "\(status)")
        #expect(request["headers"] == .array([.string("Authorization"), .string("X-Api-Key")]), "\(request)")
        #expect(request["cookies"].flatMap { try? Int(json: $0) } == 2, "\(request)")
        #expect(request["userAgent"] == .string(Self.agent), "\(request)")

        var mode = stat()
        #expect(stat(farm.spool.lists.requestPath(ofList: list), &mode) == 0 && mode.st_mode & 0o777 == 0o600)
        try Self.expectNoSecret([Self.token, Self.apiKey, Self.cookie], in: farm, besides: list)
    }

    @Test func aPagedListsPagesAndPicturesGoWithItsHeader() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let origin = farm.origin
        let pictures = try (0..<5).map { try JPEGFixture.quadrants(width: 16 + 8 * $0, height: 16) }
        let items = pictures.indices.map { PagedAPI.item(id: "p\($0)", url: origin.url(for: "/pics/\($0).jpg")) }
        for (n, bytes) in pictures.enumerated() {
            origin.serve(path: "/pics/\(n).jpg", bytes: bytes)
            origin.require("authorization", containing: Self.token, orAnswer: 401, at: "/pics/\(n).jpg")
        }
        origin.servePages(at: "/api/paged", pages: PagedAPI.pages(items, perPage: 2))
        origin.require("authorization", containing: Self.token, orAnswer: 401, at: "/api/paged")
        try farm.must(["add", origin.url(for: "/api/paged"), "--items", "/consumables", "--url", "/metadata/cover/url",
                       "--id", "/id", "--next", "/nextPage", "--header", "Authorization: \(Self.token)"])
        try farm.start(workers: 1, transfers: 2)
        try Self.waitUntilEnded(5, farm)
        for (index, bytes) in pictures.enumerated() {
            let sidecar = try #require(farm.spool.sidecars.last(JobName(list: ListID.of(name: "paged"), index: index)))
            let same = try sidecar.file.map { Array(try Data(contentsOf: URL(fileURLWithPath: $0))) } == bytes
            #expect(same, "\(index): \(sidecar)")
        }
        let pages = origin.requests.filter { $0.path == "/api/paged" }
        #expect(pages.count == 3 && pages.allSatisfy { $0.status == 200 }, "\(pages)")
        try Self.expectNoSecret([Self.token], in: farm, besides: ListID.of(name: "paged"))
    }

    @Test func aListsProxyCarriesEveryRequestAndItsPasswordShowsNowhere() throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let proxy = try LoggingProxy()
        defer { proxy.stop() }
        let password = "pr0xy-PASS-99"
        let paths = try (0..<4).map { n in
            let path = "/proxied/\(n).jpg"
            farm.origin.serve(path: path, bytes: try JPEGFixture.quadrants(width: 16 + 8 * n, height: 16))
            return path
        }
        let manifest = farm.dir.appending("Proxied.json")
        try Data(JSON.encode(paths.map { farm.origin.url(for: $0) })).write(to: URL(fileURLWithPath: manifest))
        let proxyURL = "http://farm:\(password)@127.0.0.1:\(proxy.port)"
        try farm.must(["add", manifest, "--proxy", proxyURL])
        try farm.start(workers: 1, transfers: 2)
        try Self.waitUntilEnded(4, farm)
        let heads = proxy.requests
        for path in paths {
            #expect(heads.contains { $0.hasPrefix("GET \(farm.origin.url(for: path)) HTTP/1.1") }, "\(heads)")
        }
        let credentials = "Proxy-Authorization: Basic " + Data("farm:\(password)".utf8).base64EncodedString()
        #expect(heads.allSatisfy { $0.contains(credentials) }, "\(heads)")
        let status = try farm.must(["status", "Proxied.json", "--json"])
        let request = try #require(try JSONParser.parse(Array(status.utf8))["request"], "\(status)")
        #expect(request["proxy"] == .string("http://127.0.0.1:\(proxy.port)"), "\(request)")
        try Self.expectNoSecret([password], in: farm, besides: ListID.of(name: "Proxied.json"))
    }

    @Test(arguments: [
        (["--header", "Authorization Bearer x"], "is not 'Name: value'"),
        (["--header", "Bad Name: x"], "is not an HTTP field name"),
        (["--cookies", "/nonexistent/cookies.txt"], "cannot read the cookie file"),
        (["--cookies", "MALFORMED"], "line 2 is not a cookie"),
        (["--proxy", "ftp://127.0.0.1:21"], "unsupported proxy scheme 'ftp'"),
        (["--proxy", "127.0.0.1:3128"], "must be a URL"),
    ])
    func badRequestOptionsAreRefusedInOneLineAndNothingIsAdded(_ options: [String], _ reason: String) throws {
        let farm = try RunningFarm()
        defer { farm.shutDownNow() }
        let malformed = farm.dir.appending("malformed.txt")
        try Data("# cookies\n127.0.0.1\tFALSE\t/\tFALSE\tsoon\tsession\tx\n".utf8)
            .write(to: URL(fileURLWithPath: malformed))
        farm.origin.serve(path: "/one.jpg", bytes: try JPEGFixture.quadrants(width: 16, height: 16))
        let manifest = farm.dir.appending("Refused.json")
        try Data(JSON.encode([farm.origin.url(for: "/one.jpg")])).write(to: URL(fileURLWithPath: manifest))
        let added = try farm.farm(["add", manifest] + options.map { $0 == "MALFORMED" ? malformed : $0 })
        #expect(added.status == 2, "\(added)")
        let lines = added.error.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(reason), "\(added.error)")
        #expect(farm.spool.list(ListID.of(name: "Refused.json")) == nil)
        #expect(!added.error.contains(" x\n") && !added.error.contains("Bearer"), "\(added.error)")
    }

    /// Waits until `total` jobs are done or failed; requires that all are done.
    static func waitUntilEnded(_ total: Int, _ farm: RunningFarm) throws {
        _ = poll(timeout: 180, every: 0.1) { (farm.counts[.done] ?? 0) + (farm.counts[.failed] ?? 0) == total }
        try #require(farm.counts == [.done: total], "\(farm.counts)")
    }

    /// None of `secrets` is in any file of the spool (but list `list`'s request file), the output of
    /// `farm ps`, `farm status`, `farm metrics` and `farm export`, or the command line of any farm process.
    static func expectNoSecret(_ secrets: [String], in farm: RunningFarm, besides list: String,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let allowed = farm.spool.lists.requestPath(ofList: list)
        var places: [(String, [UInt8])] = []
        for name in FileManager.default.subpaths(atPath: farm.spool.root) ?? [] {
            let path = farm.spool.root + "/" + name
            var st = stat()
            guard path != allowed, lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG,
                  let bytes = FileManager.default.contents(atPath: path) else { continue }
            places.append((path, Array(bytes)))
        }
        for command in [["ps"], ["status", "--json"], ["status", list, "--json"], ["metrics"], ["export", list]] {
            let result = try farm.farm(command)
            places.append(("farm \(command.joined(separator: " "))", Array((result.output + result.error).utf8)))
        }
        let processes = farm.processes()
        #expect(processes.count >= 3, "\(processes)", sourceLocation: sourceLocation)
        for process in processes {
            if let cmdline = FileManager.default.contents(atPath: "/proc/\(process.pid)/cmdline") {
                places.append(("/proc/\(process.pid)/cmdline", Array(cmdline)))
            }
        }
        for (place, bytes) in places {
            for secret in secrets {
                let found = bytes.count >= secret.utf8.count
                    && (0...(bytes.count - secret.utf8.count)).contains { bytes[$0...].starts(with: secret.utf8) }
                #expect(!found, "\(place) holds a secret", sourceLocation: sourceLocation)
            }
        }
    }
}
