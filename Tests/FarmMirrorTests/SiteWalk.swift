import FarmMirror
import FarmTestSupport
import Foundation

/// A breadth-first crawl by FarmMirror's rules alone, as the worker will run it: each URL fetched with a
/// plain GET (curl), HTML and CSS read by `LinkExtractor` when `CrawlScope` says so, each link admitted
/// by `CrawlScope` and then the host's `Robots` (fetched on its first admitted link, as wget does), each
/// normalized URL once, the first link's flags kept. Returns the URLs it fetched with their statuses,
/// robots.txt included.
struct SiteWalk {
    let scope: CrawlScope
    let scratch = TemporaryDirectory("farm-mirror-walk")

    struct Response {
        var status: Int
        var contentType: String?
        var body: [UInt8]
    }

    func get(_ url: WebURL) throws -> Response {
        let file = scratch.appending("body")
        try? FileManager.default.removeItem(atPath: file)
        let result = try run("/usr/bin/curl", ["--noproxy", "*", "--globoff", "--path-as-is", "-s", "-o", file,
                                               "-w", "%{http_code}\n%{content_type}", url.description], timeout: 60)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let body = FileManager.default.contents(atPath: file).map { [UInt8]($0) } ?? []
        return Response(status: Int(lines.first ?? "") ?? 0, contentType: lines.count > 1 && !lines[1].isEmpty ? lines[1] : nil,
                        body: body)
    }

    func crawl() throws -> [(url: WebURL, status: Int)] {
        var queue: [(url: WebURL, depth: Int, html: Bool, css: Bool)] = [(scope.start, 0, true, false)]
        var seen: Set<WebURL> = [scope.start]
        var robotsByOrigin: [String: Robots] = [:]
        var fetched: [(url: WebURL, status: Int)] = []
        var next = 0
        while next < queue.count {
            let item = queue[next]
            next += 1
            let response = try get(item.url)
            fetched.append((item.url, response.status))
            guard (200..<300).contains(response.status) else { continue }
            var links: [FoundLink]
            switch scope.reading(depth: item.depth, contentType: response.contentType, expectsHTML: item.html, expectsCSS: item.css) {
            case .none:
                continue
            case .css:
                links = LinkExtractor.css(response.body, url: item.url)
            case .html:
                let page = LinkExtractor.html(response.body, url: item.url)
                links = scope.options.obeysRobots && page.nofollow ? [] : page.links
            }
            for link in links where !seen.contains(link.url) {
                guard scope.admits(link, parent: item.url, parentDepth: item.depth) == nil else { continue }
                if scope.options.obeysRobots {
                    let origin = link.url.origin
                    if robotsByOrigin[origin] == nil {
                        let robotsURL = link.url.robotsURL
                        let answer = try get(robotsURL)
                        fetched.append((robotsURL, answer.status))
                        switch Robots.outcome(forStatus: answer.status == 0 ? nil : answer.status) {
                        case .parse: robotsByOrigin[origin] = Robots(parsing: answer.body, userAgent: "farm")
                        case .allowAll: robotsByOrigin[origin] = .allowAll
                        case .disallowAll: robotsByOrigin[origin] = .disallowAll
                        }
                    }
                    if !robotsByOrigin[origin]!.allows(link.url.pathAndQuery) {
                        seen.insert(link.url)
                        continue
                    }
                }
                seen.insert(link.url)
                queue.append((link.url, item.depth + 1, link.expectsHTML, link.expectsCSS))
            }
        }
        return fetched
    }
}
