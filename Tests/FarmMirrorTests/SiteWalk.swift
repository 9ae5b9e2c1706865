import FarmMirror
import FarmTestSupport
import Foundation

/// A breadth-first crawl by FarmMirror's rules alone, as the worker will run it: each URL fetched with a
/// plain GET (curl), HTML and CSS read by `LinkExtractor` when `CrawlScope` says so, each link admitted
/// by `CrawlScope` and then the host's `Robots` (fetched on its first admitted link, as wget does), each
/// normalized URL once, the first link's flags kept. Redirects are followed; as in wget, a URL already
/// downloaded (a redirect's target among them) is not fetched again when its turn comes but read from what
/// was downloaded, and a download is named after the URL that was asked for. Returns the URLs it fetched
/// with their statuses (robots.txt included), and the URLs whose downloads were kept as files.
struct SiteWalk {
    let scope: CrawlScope
    let scratch = TemporaryDirectory("farm-mirror-walk")

    struct Response {
        var status: Int
        var contentType: String?
        var body: [UInt8]
        /// Where a 3xx points, resolved.
        var location: WebURL?
    }

    func get(_ url: WebURL) throws -> Response {
        let file = scratch.appending("body")
        try? FileManager.default.removeItem(atPath: file)
        let result = try run("/usr/bin/curl", ["--noproxy", "*", "--globoff", "--path-as-is", "-s", "-o", file,
                                               "-w", "%{http_code}\n%{content_type}\n%{redirect_url}", url.description],
                             timeout: 60)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let body = FileManager.default.contents(atPath: file).map { [UInt8]($0) } ?? []
        return Response(status: Int(lines.first ?? "") ?? 0, contentType: lines.count > 1 && !lines[1].isEmpty ? lines[1] : nil,
                        body: body, location: lines.count > 2 ? WebURL(lines[2]) : nil)
    }

    func crawl() throws -> (fetched: [(url: WebURL, status: Int)], files: [WebURL]) {
        var queue: [(url: WebURL, depth: Int, html: Bool, css: Bool)] = [(scope.start, 0, true, false)]
        var seen: Set<WebURL> = [scope.start]
        var robotsByOrigin: [String: Robots] = [:]
        var fetched: [(url: WebURL, status: Int)] = []
        var files: [WebURL] = []
        // What each downloaded URL (asked for, or reached by redirects) answered, as wget's `dl_url_file_map`.
        var downloaded: [WebURL: Response] = [:]
        // A host's robots.txt, fetched the first time a URL of it needs it.
        func robots(for url: WebURL) throws -> Robots {
            if let known = robotsByOrigin[url.origin] { return known }
            let answer = try get(url.robotsURL)
            fetched.append((url.robotsURL, answer.status))
            let robots: Robots
            switch Robots.outcome(forStatus: answer.status == 0 ? nil : answer.status) {
            case .parse: robots = Robots(parsing: answer.body, userAgent: "farm")
            case .allowAll: robots = .allowAll
            case .disallowAll: robots = .disallowAll
            }
            robotsByOrigin[url.origin] = robots
            return robots
        }
        var next = 0
        while next < queue.count {
            let item = queue[next]
            next += 1
            var response: Response
            var url = item.url
            var reading: CrawlScope.Reading
            if let previous = downloaded[item.url] {
                // Read again from the download if this link's flags allow its kind (CSS first, as wget).
                let type = previous.contentType.map { String($0.prefix { $0 != ";" }).lowercased() }
                let kind: CrawlScope.Reading = item.css && type == "text/css" ? .css : item.html && type == "text/html" ? .html : .none
                reading = kind == .none ? .none : scope.reading(depth: item.depth, contentType: type, expectsHTML: kind == .html,
                                                                 expectsCSS: kind == .css)
                if reading == .none { continue }
                response = previous
            } else {
                response = try get(item.url)
                fetched.append((item.url, response.status))
                // Redirects are followed (up to 20, as wget); the page is then the URL it ended at.
                var hops = 0
                while (300..<400).contains(response.status), let location = response.location, hops < 20 {
                    url = location
                    hops += 1
                    response = try get(url)
                    fetched.append((url, response.status))
                }
                guard (200..<300).contains(response.status) else { continue }
                files.append(item.url)
                // A download `delivers` refuses is removed once read, and forgotten: asked for again, it is
                // fetched again (wget's `register_delete_file`).
                if scope.delivers(item.url) {
                    downloaded[item.url] = response
                    downloaded[url] = response
                }
                reading = scope.reading(depth: item.depth, contentType: response.contentType, expectsHTML: item.html,
                                        expectsCSS: item.css)
                if url != item.url && reading != .none {
                    var reads = !seen.contains(url) && scope.admitsRedirect(to: url, from: item.url, depth: item.depth) == nil
                    if try reads && scope.options.obeysRobots && !robots(for: url).allows(url.pathAndQuery) {
                        seen.insert(url)
                        reads = false
                    }
                    if reads { seen.insert(url) } else { reading = .none }
                }
            }
            var links: [FoundLink]
            switch reading {
            case .none:
                continue
            case .css:
                links = LinkExtractor.css(response.body, url: url)
            case .html:
                let page = LinkExtractor.html(response.body, url: url)
                links = scope.options.obeysRobots && page.nofollow ? [] : page.links
            }
            for link in links where !seen.contains(link.url) {
                guard scope.admits(link, parent: url, parentDepth: item.depth) == nil else { continue }
                if try scope.options.obeysRobots && !robots(for: link.url).allows(link.url.pathAndQuery) {
                    seen.insert(link.url)
                    continue
                }
                seen.insert(link.url)
                queue.append((link.url, item.depth + 1, link.expectsHTML, link.expectsCSS))
            }
        }
        return (fetched, files)
    }
}
