import FarmJSON
import FarmOrigin
import FarmSpool
import FarmStatus
import Foundation

/// The mirrored site of a chaos run (SPEC §18), served by the chaos origin under `/site/`: an index linking
/// `sections` section pages, each linking `perSection` pages that link each other in a ring and back home,
/// every page with an image, the index with a stylesheet whose `url()` names another, and a link into
/// `/site/private/` that its robots.txt disallows. Added as `farm add URL --recursive --level inf` before the
/// chaos, so that workers, the watcher and the supervisor are killed while the list grows from its pages.
/// Each page is throttled to last about `pageSeconds`, so that kills often land in the middle of one, and
/// with it in the middle of the step that appends its links and completes it.
///
/// `findings` checks what §18 promises across kills: the list holds each reachable URL exactly once and
/// nothing else, it is Finished with every resource done, each output is the origin's bytes, and the page
/// robots.txt disallows was never asked for. The generic verdict leaves the list to it (its job numbers
/// follow the order pages were fetched in, which no manifest says). Used by the main thread only.
final class RecursiveSite {
    static let name = "site"
    static let privatePath = "/site/private/secret.html"

    /// Every path the crawl reaches, with its bytes.
    private(set) var reachable: [String: [UInt8]] = [:]
    private let origin: Origin

    init(origin: Origin, sections: Int, perSection: Int, pageSeconds: Double) {
        self.origin = origin
        func serve(_ path: String, _ bytes: [UInt8], _ type: String, throttled: Bool) {
            origin.serve(path: path, bytes: bytes, contentType: type)
            if throttled { origin.inject(.throttle(bytesPerSecond: max(64, Int(Double(bytes.count) / pageSeconds))), at: path) }
            reachable[path] = bytes
        }
        func page(_ path: String, _ body: String) {
            // Padded so that a throttled page takes its time over several reads.
            let padding = "<!-- " + String(repeating: "farm chaos ", count: 60) + "-->"
            serve(path, Array("<!DOCTYPE html>\n<html><body>\n\(body)\n\(padding)\n</body></html>\n".utf8), "text/html",
                  throttled: true)
        }
        func image(_ path: String, seed: UInt64) {
            serve(path, Pictures.png(size: 3_000, seed: seed), "image/png", throttled: false)
        }
        origin.serve(path: "/robots.txt", bytes: Array("User-agent: *\nDisallow: /site/private/\n".utf8),
                     contentType: "text/plain")
        origin.serve(path: Self.privatePath, bytes: Array("<html>private</html>".utf8), contentType: "text/html")
        let sectionLinks = (0..<sections).map { "<a href=\"s\($0)/index.html\">section \($0)</a>" }.joined(separator: " ")
        page("/site/index.html", """
            <head><link rel="stylesheet" href="style.css"></head><img src="img/home.png">
            \(sectionLinks) <a href="private/secret.html">private</a> <a href="index.html#top">self</a>
            """)
        serve("/site/style.css", Array("body { background: url(img/back.png) }".utf8), "text/css", throttled: false)
        image("/site/img/home.png", seed: 1)
        image("/site/img/back.png", seed: 2)
        for section in 0..<sections {
            let pages = (0..<perSection).map { "<a href=\"p\($0).html\">\($0)</a>" }.joined(separator: " ")
            page("/site/s\(section)/index.html", "<img src=\"../img/s\(section).png\"> \(pages) <a href=\"../index.html\">home</a>")
            image("/site/img/s\(section).png", seed: 100 + UInt64(section))
            for number in 0..<perSection {
                page("/site/s\(section)/p\(number).html", """
                    <img src="img/p\(number).png"> <a href="p\((number + 1) % perSection).html">next</a>
                    <a href="../index.html">home</a> <a href="index.html">up</a>
                    """)
                image("/site/s\(section)/img/p\(number).png", seed: 1000 + UInt64(section * perSection + number))
            }
        }
    }

    /// `farm add` of the site's index, recursive with no level limit, named `site`.
    var addArguments: [String] {
        ["add", origin.url(for: "/site/index.html"), "--recursive", "--level", "inf", "--name", Self.name]
    }

    /// What is wrong with the mirrored list on the final spool.
    func findings(spool: Spool, farm: FarmCommand) -> [String] {
        var found: [String] = []
        let id = ListID.of(name: Self.name)
        let paths = (spool.lists.resources(ofList: id) ?? []).map { URL(string: $0.url)?.path ?? $0.url }
        var seen: Set<String> = []
        for path in paths where !seen.insert(path).inserted { found.append("\(path) is in the list twice") }
        for path in Set(reachable.keys).subtracting(seen).sorted() { found.append("\(path) was never added") }
        for path in seen.subtracting(reachable.keys).sorted() { found.append("\(path) is in the list, not on the site") }
        if !origin.requests(for: Self.privatePath).isEmpty { found.append("robots.txt's disallowed page was fetched") }
        for (index, path) in paths.enumerated() {
            guard let sidecar = spool.sidecars.last(JobName(list: id, index: index)) else {
                found.append("\(path): no record of how it ended")
                continue
            }
            guard sidecar.status == .done, let file = sidecar.file else {
                found.append("\(path) ended \(sidecar.status.rawValue): \(sidecar.error ?? "")")
                continue
            }
            if let expected = reachable[path], FileManager.default.contents(atPath: file).map(Array.init) != expected {
                found.append("\(path): its output \(file) is not the origin's bytes")
            }
        }
        let status = (try? farm.run(["status", "--json"])).flatMap { $0.status == 0 ? Array($0.output.utf8) : nil }
            .flatMap { JSON.decode(StatusDocument.self, from: $0) }
        if let list = status?.lists.first(where: { $0.name == Self.name }) {
            if list.state != .finished { found.append("the mirrored list is \(list.state.rawValue), not Finished") }
            if list.total != reachable.count { found.append("its total is \(list.total), not \(reachable.count)") }
        } else {
            found.append("the mirrored list is not in farm status --json")
        }
        return found
    }
}
