import FarmMirror
import FarmOrigin
import FarmTestSupport
import Foundation
import Testing

/// The issue's first goal, for the rules alone: on a generated site, the set of URLs a walk by FarmMirror's
/// rules fetches is exactly the set the real GNU wget fetches with `-r -p`, compared request for request in
/// the origins' logs (robots.txt included, which both fetch for each host:port on its first admitted link).
@Suite(.serialized) struct WgetComparisonTests {
    static let wget = "/usr/bin/wget"

    /// What was asked of the two origins since their logs were cleared, each request once, in order:
    /// "METHOD http://127.0.0.1:port/path?query".
    static func requests(_ origins: [Origin]) -> [String] {
        origins.flatMap { origin in
            origin.requests.map { "\($0.method) http://127.0.0.1:\(origin.port)\($0.path)" + ($0.query.map { "?" + $0 } ?? "") }
        }.sorted()
    }

    static func compare(startPath: String, wgetOptions: [String], options: CrawlOptions,
                        keepsRobots: Bool = true) throws -> Set<String> {
        let main = Origin(), other = Origin()
        try main.start()
        try other.start()
        defer {
            main.stop()
            other.stop()
        }
        GeneratedSite(mainPort: main.port, otherPort: other.port).serve(main: main, other: other)
        let start = try #require(WebURL(main.url(for: startPath)))

        let output = TemporaryDirectory("farm-mirror-wget")
        let result = try run(Self.wget, ["--no-config", "--no-proxy", "-r", "-p", "-nv", "-t", "1", "-T", "20",
                                         "-P", output.path] + wgetOptions + [start.description], timeout: 300)
        // wget exits 8 when the server answered an error (the broken links): any other failure is the test's.
        #expect(result.status == 0 || result.status == 8, "\(result.error)")
        let byWget = requests([main, other])
        main.clearRequests()
        other.clearRequests()

        let walked = try SiteWalk(scope: CrawlScope(start: start, options: options)).crawl()
        let byFarmMirror = requests([main, other])
        #expect(byFarmMirror.count == walked.fetched.count)
        // As many requests for each URL as wget made (a redirect's target already fetched is fetched again).
        #expect(byFarmMirror == byWget, """
            only wget: \(Self.difference(byWget, byFarmMirror)); only FarmMirror: \(Self.difference(byFarmMirror, byWget)); \
            wget's log: \(result.error)
            """)
        // MirrorName names each file as wget left it: every answer of 2xx that `delivers` keeps (wget removes
        // the others once read), and nothing else.
        let scope = CrawlScope(start: start, options: options)
        let robotsFiles = walked.fetched.filter { $0.url.path == "/robots.txt" && (200..<300).contains($0.status) && keepsRobots }
        let named = Set((robotsFiles.map(\.url) + walked.files.filter { scope.delivers($0) }).map { MirrorName.relativePath(for: $0) })
        let written = Set(FileManager.default.enumerator(atPath: output.path)!.compactMap { entry -> String? in
            let path = entry as! String
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: output.appending(path), isDirectory: &isDirectory)
            return isDirectory.boolValue ? nil : path
        })
        #expect(named == written, "only named: \(named.subtracting(written).sorted()); only written: \(written.subtracting(named).sorted())")
        // Normalized to the origin's own port for the checks below.
        return Set(byWget.map { $0.replacingOccurrences("http://127.0.0.1:\(main.port)", "").replacingOccurrences(
            "http://127.0.0.1:\(other.port)", "other:") })
    }

    /// The requests of `left` that `right` lacks, counting repeats.
    static func difference(_ left: [String], _ right: [String]) -> [String] {
        var remaining = right
        return left.filter { request in
            guard let index = remaining.firstIndex(of: request) else { return true }
            remaining.remove(at: index)
            return false
        }
    }

    @Test func fetchesWhatWgetFetchesAtLevel3() throws {
        let fetched = try Self.compare(startPath: "/index.html", wgetOptions: ["-l", "3"], options: CrawlOptions(level: 3))
        // Not vacuous: the set holds what the site was built to test, and not what it was built to leave out.
        for path in ["/robots.txt", "/index.html", "/s2/", "/s3/index.html", "/s1/deep/d1.html", "/s1/img/d1.png",
                     "/img/logo-3x.png", "/img/print-bg.png", "/img/inline-bg.png", "/img/div-bg.png", "/css/deep-import.css",
                     "/s1/deep/frame.png", "/s3/based.png", "/missing.html", "/fromscript.html", "/query.html?a=1&b=2",
                     "/sp%20ace.html", "/Upper.html", "other:/robots.txt", "other:/elsewhere.png", "/s4/nofollow.html",
                     "/s2/before.html", "/s4/second.png", "/s4/typo.html"] {
            #expect(fetched.contains("GET " + path), "\(path)")
        }
        // The private page is fetched only through a redirect (robots.txt is asked only before reading it).
        #expect(fetched.contains("GET /to-private.html") && fetched.contains("GET /private/secret.html"))
        for path in ["/private/secret.png", "/s1/deep/deeper/e1.html", "/img/deep-import-bg.png", "/commented.html",
                     "/img/commented.png", "/should-not-follow.html", "/s4/hidden.html", "/s4/nofollow.png",
                     "/s1/deep/framelink.html", "/s3/deep/refreshed.html", "/img/not-css.png", "/s4/typo-child.html",
                     "/s3/second.png"] {
            #expect(!fetched.contains("GET " + path), "\(path)")
        }
    }

    @Test func fetchesWhatWgetFetchesWithNoParent() throws {
        let fetched = try Self.compare(startPath: "/s1/index.html", wgetOptions: ["-l", "3", "--no-parent"],
                                       options: CrawlOptions(level: 3, noParent: true))
        #expect(fetched.contains("GET /img/s1.png") && fetched.contains("GET /s1/deep/d2.html"))
        #expect(!fetched.contains("GET /outside/o1.html") && !fetched.contains("GET /index.html"))
    }

    @Test func fetchesWhatWgetFetchesAtLevel1() throws {
        let fetched = try Self.compare(startPath: "/index.html", wgetOptions: ["-l", "1"], options: CrawlOptions(level: 1))
        #expect(fetched.contains("GET /img/s2.png") && fetched.contains("GET /img/theme.png"))
        #expect(!fetched.contains("GET /s1/p2.html") && !fetched.contains("GET /s1/img/p2.png"))
    }

    @Test func fetchesAndDeliversWhatWgetDoesWithAcceptRejectAndExcludedDirectories() throws {
        let fetched = try Self.compare(
            startPath: "/index.html", wgetOptions: ["-l", "2", "-A", "*.png,css", "-R", "logo-2x*", "-X", "/s3,/outside"],
            options: CrawlOptions(level: 2, accept: ["*.png", "css"], reject: ["logo-2x*"], excludeDirectories: ["/s3", "/outside"]),
            keepsRobots: false)
        // Pages are fetched for their links (and removed); names that are not accepted are never fetched.
        #expect(fetched.contains("GET /s1/p1.html") && fetched.contains("GET /img/logo-3x.png") && fetched.contains("GET /css/site.css"))
        #expect(!fetched.contains("GET /img/logo-2x.png") && !fetched.contains("GET /js/app.js") && !fetched.contains("GET /favicon.ico"))
        #expect(!fetched.contains("GET /s3/index.html") && !fetched.contains("GET /s3/based.png"))
    }

    @Test func fetchesWhatWgetFetchesSpanningHostsWithinDomains() throws {
        let fetched = try Self.compare(startPath: "/index.html", wgetOptions: ["-l", "1", "-H", "-D", "127.0.0.1"],
                                       options: CrawlOptions(level: 1, spanHosts: true, domains: ["127.0.0.1"]))
        #expect(fetched.contains("GET other:/elsewhere.png") && fetched.contains("GET /s1/index.html"))
    }
}
