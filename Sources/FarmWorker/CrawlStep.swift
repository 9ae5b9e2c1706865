import FarmLists
import FarmMirror
import FarmSpool
import FarmSystem
import FarmTransfer

/// The part of a recursive list's job that grows the list (SPEC §18): once the page's bytes are stored
/// and before its completion, the links of an HTML page or a stylesheet that the crawl's scope, level and
/// robots.txt admit are appended to the list (FarmLists' CrawlAppend.swift says why that makes the page's
/// completion and its links one step across kills). Only jobs of lists whose request options say `crawl`
/// come here: a plain list's job pays nothing.
///
/// A URL's depth is that of the first page whose links added it. wget crawls breadth first, one page at a
/// time, so its depth is the shortest path's; here pages at one depth finish in any order, and a URL also
/// reachable by a shorter path through a slower page may be added one level deeper than wget would have it
/// (then, at the last level, only its requisites are followed). Jobs are claimed in the order their links
/// were added, which keeps this rare; it is not yet made impossible.
struct CrawlStep {
    let crawl: CrawlSettings
    /// What the response said it is (nil for bytes served from another job's download: then the bytes tell).
    let contentType: String?
    /// The robots.txt rules of a link's origin (`CrawlRobots`), asked only for a link the scope admits; nil
    /// with `--no-robots`.
    var robots: (@Sendable (WebURL) -> Robots)?

    /// Most bytes of a page read for links; a longer page is read up to there (wget reads all of it, but a
    /// page past this is no page a mirror follows whole).
    static let readLimit = 64 << 20

    /// The links of the page `record` stored at `file` that the list takes: one record each, in the order
    /// found, first link of a URL first, with its depth and what it is expected to be read as.
    /// `finalURL`: where the request ended when it was redirected; the page is read there (its links resolved
    /// against it) only if the scope admits it as wget's `descend_redirect` does.
    func links(of record: JobRecord, file: String, finalURL: String? = nil) -> [JobRecord] {
        guard let asked = WebURL(record.url), let start = WebURL(crawl.start) else { return [] }
        let scope = CrawlScope(start: start, options: crawl.options)
        let depth = record.depth ?? 0
        var page = asked
        if let finalURL, let target = WebURL(finalURL), target != asked {
            guard scope.admitsRedirect(to: target, from: asked, depth: depth) == nil else { return [] }
            page = target
        }
        let expects = record.expects ?? ""
        let reading = scope.reading(depth: depth, contentType: contentType ?? sniffedType(file),
                                    expectsHTML: expects.contains("html"), expectsCSS: expects.contains("css"))
        guard reading != .none, let bytes = try? FileSystem.readFile(file, limit: Self.readLimit) else { return [] }
        var found: [FoundLink]
        switch reading {
        case .html:
            let links = LinkExtractor.html(bytes, url: page)
            found = links.links
            // meta robots nofollow: the page's links are not followed; what it needs to show still is.
            if links.nofollow && crawl.options.obeysRobots { found = found.filter(\.isRequisite) }
        case .css: found = LinkExtractor.css(bytes, url: page)
        case .none: found = []
        }
        var seen = Set<WebURL>()
        var records: [JobRecord] = []
        for link in found where seen.insert(link.url).inserted {
            guard scope.admits(link, parent: page, parentDepth: depth) == nil else { continue }
            if let robots, !robots(link.url).allows(link.url.pathAndQuery) { continue }
            var child = JobRecord(url: link.url.description, id: "")
            child.depth = depth + 1
            child.expects = [link.expectsHTML ? "html" : nil, link.expectsCSS ? "css" : nil]
                .compactMap { $0 }.joined(separator: " ")
            if child.expects?.isEmpty == true { child.expects = nil }
            records.append(child)
        }
        return records
    }

    /// For bytes with no Content-Type known: HTML when they open with a tag, after blanks.
    private func sniffedType(_ file: String) -> String? {
        guard let head = try? FileSystem.readFile(file, limit: 512) else { return nil }
        let first = head.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB
            || $0 == 0xBF }.first
        return first == UInt8(ascii: "<") ? "text/html" : nil
    }
}

extension JobRun {
    /// The Crawl-delay asked by the robots.txt of `url`'s origin, the start's or one the list spans to (nil for
    /// another origin, which only a redirect reaches). Asked before each request: the first to an origin
    /// fetches its robots.txt (`CrawlRobots`), so that comes before the origin's other requests.
    func crawlDelay(_ url: String) -> Double? {
        guard let crawl, let robots, let target = WebURL(url), let start = WebURL(crawl.start),
              target.origin == start.origin || crawl.options.spanHosts else { return nil }
        return robots(target).crawlDelay.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Appends the links of the stored page `file` to its recursive list, before the job completes. False
    /// when they could not be (the spool failed): the job went back to the queue, and its next run appends.
    func appendLinks(file: String) -> Bool {
        guard let crawl, let seen = crawlSeen else { return true }
        var step = CrawlStep(crawl: crawl, contentType: contentType)
        step.robots = robots
        let links = step.links(of: claim.record, file: file, finalURL: finalURL)
        guard !links.isEmpty else { return true }
        do {
            _ = try Lists(spool).appendLinks(links, toList: claim.job.list, seen: seen)
            return true
        } catch {
            spool.log("cannot add the links of \(claim.job): \(error); it goes back to the queue")
            do { try spool.release(claim) } catch where error.code == .leaseLost {} catch { spool.log("\(error)") }
            return false
        }
    }
}
