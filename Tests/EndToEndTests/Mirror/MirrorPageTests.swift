import FarmOrigin
import FarmSpool
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// The odd pages of SPEC §18 and issue 64, crawled end to end by a real farm from an origin on 127.0.0.1:
/// `srcset`, CSS `url()` and `@import` (linked, `<style>`, `style=`), a `<base href>`, a page named `.html`
/// that is not HTML, a page of several megabytes, and meta robots nofollow. The set fetched is the set GNU
/// wget `-r -l inf -p` fetches from the same origin, and each odd page is checked for what it is about.
@Suite(.serialized) struct MirrorPageTests {
    /// Bytes of the huge page: a few megabytes of paragraphs, a link at its start, its middle and its end.
    static let hugeSize = 6 << 20

    static func serveSite(_ origin: Origin) {
        func page(_ path: String, _ body: String) {
            origin.serve(path: path, bytes: Array("<!DOCTYPE html>\n<html>\(body)</html>\n".utf8), contentType: "text/html")
        }
        func file(_ path: String, _ type: String = "image/png") {
            origin.serve(path: path, bytes: Array("BYTES \(path)".utf8), contentType: type)
        }
        origin.serve(path: "/robots.txt", bytes: Array("User-agent: *\nDisallow:\n".utf8), contentType: "text/plain")
        page("/index.html", """
            <head><link rel="stylesheet" href="css/main.css">
            <style>@import "css/imported.css"; body { background: url('img/style-block.png') }</style></head>
            <body><img src="img/plain.png" srcset="img/small.png 1x, img/large.png 2x">
            <picture><source srcset="img/wide.png 800w, img/narrow.png 400w"></picture>
            <div style="background: url(img/style-attribute.png)">x</div>
            <a href="based.html">base</a> <a href="notreally.html">not HTML</a> <a href="huge.html">huge</a>
            <a href="nofollow.html">nofollow</a></body>
            """)
        origin.serve(path: "/css/main.css", bytes: Array("""
            @import url(more.css);
            .x { background: url("../img/from-css.png") }
            """.utf8), contentType: "text/css")
        origin.serve(path: "/css/more.css", bytes: Array(".y { background: url(more.png) }".utf8), contentType: "text/css")
        origin.serve(path: "/css/imported.css", bytes: Array(".z { background: url(imported.png) }".utf8),
                     contentType: "text/css")
        for name in ["plain", "small", "large", "wide", "narrow", "style-attribute", "style-block", "from-css"] {
            file("/img/\(name).png")
        }
        file("/css/more.png")
        file("/css/imported.png")
        // Links after <base> resolve against it; the page's own folder has decoys that must not be asked for.
        page("/based.html", """
            <head><base href="/elsewhere/below/"></head><body><a href="target.html">t</a> <img src="pic.png">
            <a href="../up.html">up</a></body>
            """)
        page("/elsewhere/below/target.html", "<body>target</body>")
        file("/elsewhere/below/pic.png")
        page("/elsewhere/up.html", "<body>up</body>")
        page("/target.html", "<body>decoy</body>")
        file("/pic.png")
        // Named .html, served as bytes of no kind: read for no link, kept as kind other.
        origin.serve(path: "/notreally.html",
                     bytes: [0, 1, 2] + Array(" <a href=\"trap.html\">trap</a> <img src=\"trap.png\">".utf8),
                     contentType: "application/octet-stream")
        page("/trap.html", "<body>trap</body>")
        file("/trap.png")
        // Several megabytes of HTML with links at its start, middle and end.
        var huge = Array("<!DOCTYPE html>\n<html><body><a href=\"huge/first.html\">first</a>\n".utf8)
        let paragraph = Array("<p>Lorem ipsum dolor sit amet, <b>consectetur</b> adipiscing elit, sed do eiusmod.</p>\n".utf8)
        while huge.count < hugeSize / 2 { huge += paragraph }
        huge += Array("<a href=\"huge/middle.html\">middle</a><img src=\"huge/middle.png\">\n".utf8)
        while huge.count < hugeSize { huge += paragraph }
        huge += Array("<a href=\"huge/last.html\">last</a></body></html>\n".utf8)
        origin.serve(path: "/huge.html", bytes: huge, contentType: "text/html")
        for name in ["first", "middle", "last"] { page("/huge/\(name).html", "<body>\(name)</body>") }
        file("/huge/middle.png")
        // meta robots nofollow: its links are not followed, what it needs to show still is.
        page("/nofollow.html", """
            <head><meta name="robots" content="nofollow"></head><body><a href="unfollowed.html">no</a>
            <img src="img/nofollow.png"></body>
            """)
        page("/unfollowed.html", "<body>unfollowed</body>")
        file("/img/nofollow.png")
    }

    @Test func oddPagesAreCrawledAsWgetCrawlsThem() throws {
        let farm = try RunningFarm()
        Self.serveSite(farm.origin)
        let byWget = try RecursiveListTests.fetchedByWget(farm.origin, ["-l", "inf"])
        try farm.must(["add", farm.origin.url(for: "/index.html"), "--recursive", "--level", "inf", "--name", "odd"])
        try farm.start(workers: 1, transfers: 2)
        let list = try #require(try RecursiveListTests.waitFinished(farm, "odd"))
        let byFarm = RecursiveListTests.asked(farm.origin).paths
        // Where SPEC §18 asks for more than wget 1.21 does: `<source srcset>` (wget reads srcset of `img` only),
        // and the images of a nofollow page (wget drops every link of it, requisites too; farm only what it
        // would follow).
        let beyondWget: Set<String> = ["/img/wide.png", "/img/narrow.png", "/img/nofollow.png"]
        #expect(byFarm == byWget.union(beyondWget),
                "only wget: \(byWget.subtracting(byFarm).sorted()); only farm: \(byFarm.subtracting(byWget).sorted())")
        #expect(list.failed == 0 && list.done == list.total)

        // srcset (img and source) and CSS: a linked stylesheet's url() and @import url(), a <style>'s @import
        // string and url(), a style attribute's url(), and the url()s of the imported sheets.
        for path in ["/img/small.png", "/img/large.png", "/img/wide.png", "/img/narrow.png", "/img/style-attribute.png",
                     "/img/style-block.png", "/img/from-css.png", "/css/more.css", "/css/more.png", "/css/imported.css",
                     "/css/imported.png"] {
            #expect(byFarm.contains(path), "\(path) not fetched")
        }
        // <base href>: the links after it are resolved against it.
        #expect(byFarm.isSuperset(of: ["/elsewhere/below/target.html", "/elsewhere/below/pic.png", "/elsewhere/up.html"]))
        #expect(!byFarm.contains("/target.html") && !byFarm.contains("/pic.png"))
        // A page named .html that is not HTML: fetched, kept as kind other, its "links" never read.
        #expect(byFarm.contains("/notreally.html") && !byFarm.contains("/trap.html") && !byFarm.contains("/trap.png"))
        let id = ListID.of(name: "odd")
        let table = farm.spool.lists.resources(ofList: id) ?? []
        let index = try #require(table.firstIndex { $0.url.hasSuffix("/notreally.html") })
        #expect(farm.spool.sidecars.last(JobName(list: id, index: index), finished: [.done])?.kind == "other")
        // The huge page: its links found to its end.
        #expect(byFarm.isSuperset(of: ["/huge/first.html", "/huge/middle.html", "/huge/middle.png", "/huge/last.html"]))
        // nofollow: the image, not the link.
        #expect(byFarm.contains("/img/nofollow.png") && !byFarm.contains("/unfollowed.html"))

        // Memory: the worker read a page of several megabytes; its peak stays a bounded multiple of it.
        for pid in farm.pids(.worker) {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
                .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
            print("worker \(pid): peak RSS \(peak) kB after a page of \(Self.hugeSize >> 10) kB")
            #expect(peak > 0 && peak < 4 * (Self.hugeSize >> 10) + 64 * 1024, "peak RSS \(peak) kB")
        }
    }
}
