@testable import FarmMirror
import Testing

/// Links of HTML and CSS as GNU wget finds them (html-url.c, html-parse.c, css-url.c, css.l).
@Suite struct LinkExtractorTests {
    static let page = WebURL("http://site.test/dir/page.html")!

    static func links(_ html: String, at url: WebURL = page) -> [String] {
        LinkExtractor.html(Array(html.utf8), url: url).links.map(\.description)
    }

    @Test func findsEveryTagAndAttributeWgetReads() {
        let html = """
            <a href="a.html">a</a><area href="area.html"><img src="img.png" lowsrc="low.png">
            <link rel="stylesheet" href="s.css"><link rel="alternate stylesheet" href="alt.css">
            <link rel="icon" href="i.ico"><link rel="shortcut icon" href="s.ico"><link rel="manifest" href="m.json">
            <link rel="next" href="next.html"><link rel="alternate" type="application/rss+xml" href="feed">
            <link href="norel.txt"><script src="app.js"></script><iframe src="if.html"></iframe>
            <frame src="fr.html"><video src="v.mp4" poster="poster.jpg"></video><audio src="a.ogg"></audio>
            <source src="src.webm"><embed src="e.swf" href="e.html"><object data="o.bin"></object>
            <body background="bg.gif"><table background="t.gif"><td background="td.gif"><th background="th.gif">
            <input type="image" src="in.png"><applet code="ap.class"><bgsound src="snd.wav">
            <form action="post.cgi"><base href="ignored-after">
            """
        #expect(Self.links(html) == [
            "http://site.test/dir/a.html html", "http://site.test/dir/area.html html",
            "http://site.test/dir/img.png requisite", "http://site.test/dir/low.png requisite",
            "http://site.test/dir/s.css requisite css", "http://site.test/dir/alt.css requisite css",
            "http://site.test/dir/i.ico requisite", "http://site.test/dir/s.ico requisite",
            "http://site.test/dir/m.json requisite", "http://site.test/dir/next.html html",
            "http://site.test/dir/feed", "http://site.test/dir/norel.txt",
            "http://site.test/dir/app.js requisite", "http://site.test/dir/if.html requisite html",
            "http://site.test/dir/fr.html requisite html", "http://site.test/dir/v.mp4 requisite",
            "http://site.test/dir/poster.jpg requisite", "http://site.test/dir/a.ogg requisite",
            "http://site.test/dir/src.webm requisite", "http://site.test/dir/e.swf requisite html",
            "http://site.test/dir/e.html html", "http://site.test/dir/o.bin requisite",
            "http://site.test/dir/bg.gif requisite", "http://site.test/dir/t.gif requisite",
            "http://site.test/dir/td.gif requisite", "http://site.test/dir/th.gif requisite",
            "http://site.test/dir/in.png requisite", "http://site.test/dir/ap.class requisite",
            "http://site.test/dir/snd.wav requisite",
        ])
    }

    @Test func readsSrcsetOfImagesAndSourcesOnly() {
        let html = """
            <img srcset="a.png 1x, b.png 2x,c.png,, d.png (max-width: 1px, x) 3x, e,f.png 4x">
            <source srcset=" s1.webp 100w ,s2.webp"><video srcset="no.png">
            """
        #expect(Self.links(html).map { $0.replacingOccurrences("http://site.test/dir/", "") } == [
            "a.png requisite", "b.png requisite", "c.png requisite", "d.png requisite", "e,f.png requisite",
            "s1.webp requisite", "s2.webp requisite",
        ])
    }

    @Test func resolvesAgainstEachBaseFromWhereItStands() {
        let html = """
            <a href="before.html"></a><base href="/other/"><a href="after.html"></a>
            <base href="../third/x.html"><img src="img.png">
            """
        #expect(Self.links(html) == [
            "http://site.test/dir/before.html html", "http://site.test/other/after.html html",
            "http://site.test/third/img.png requisite",
        ])
    }

    @Test func followsMetaRefreshAsWgetParsesIt() {
        #expect(LinkExtractor.refreshTarget("5; url=next.html") == "next.html")
        #expect(LinkExtractor.refreshTarget("0;URL= x.html") == "x.html")
        #expect(LinkExtractor.refreshTarget(";url=nodigits.html") == "nodigits.html")
        #expect(LinkExtractor.refreshTarget("5 ; url=x") == nil)
        #expect(LinkExtractor.refreshTarget("-1; url=x") == nil)
        #expect(LinkExtractor.refreshTarget("5; url =x") == nil)
        #expect(LinkExtractor.refreshTarget("5") == nil)
        #expect(Self.links(#"<META HTTP-EQUIV="Refresh" CONTENT="3; URL=/moved.html">"#) == ["http://site.test/moved.html html"])
    }

    @Test func readsMetaRobotsNofollowAsWgetDoes() {
        func nofollow(_ content: String) -> Bool {
            LinkExtractor.html(Array("<meta name=\"ROBOTS\" content=\"\(content)\"><a href=x>".utf8), url: Self.page).nofollow
        }
        #expect(nofollow("nofollow") && nofollow("NOINDEX, NOFOLLOW") && nofollow("none") && nofollow("index,nofollow"))
        #expect(!nofollow("index, follow") && !nofollow("noindex") && !nofollow("all"))
        // wget compares over the token's length: a prefix of "nofollow", even an empty token, counts.
        #expect(nofollow("no") && nofollow(", index"))
        #expect(!LinkExtractor.html(Array(#"<meta name="description" content="nofollow">"#.utf8), url: Self.page).nofollow)
    }

    @Test func tokenizesAsWgetDoes() {
        let html = """
            <!-- <a href="commented.html"> --><!DOCTYPE html><!-- a -- b --><a
            HREF = 'single.html'><A href=unquoted.html?x=1&amp;y=2>x</A><img src="  spaced
            .png  "><a href="&#x2F;abs&#47;e&lt;t&gt;.html"><a href="&eacute;&ampx">
            <script>document.write('<img src="fromscript.png">')</script><a href = "/tag" / >
            <a href="bad"x><p <a href="inside.html"><a href="forgotten
            >dropped</a><a href="last.html">
            """
        #expect(Self.links(html).map { $0.replacingOccurrences("http://site.test", "") } == [
            "/dir/single.html html", "/dir/unquoted.html?x=1&y=2 html", "/dir/spaced.png requisite",
            "/abs/e%3Ct%3E.html html", "/dir/&eacute;&ampx html", "/dir/fromscript.png requisite", "/tag html",
            "/dir/bad html", "/dir/inside.html html", "/dir/last.html html",
        ])
    }

    @Test func readsStyleAttributesAndStyleBlocksAsCSS() {
        let html = """
            <div style="background: url('s1.png')"><style>
            @import "imp.css"; p { background: url( s2.png ) } /* url(no.png) */ </style>
            <style>x{background:url(s3.png)}
            """
        #expect(Self.links(html).map { $0.replacingOccurrences("http://site.test/dir/", "") } == [
            "s1.png requisite", "imp.css requisite css", "s2.png requisite",
        ])
    }

    @Test func findsCSSLinksAsWgetsScannerDoes() throws {
        let sheet = WebURL("http://site.test/css/site.css")!
        let css = """
            @import "a.css"; @import url(b.css); @IMPORT 'c.css' screen; @import /* c */ url(d.css);
            body { background: URL("../img/e.png") } .x { background: url(  f.png  ) }
            /* url(no1.png) */ .y { content: "url(no2.png)" } .z { background: xurl(no3.png) }
            .w { width: 5url(no4.png) } .v { background: url(g.png }
            .u { background: url(a b.png) } .t { background: url(h\\).png) } .s { background: url() }
            """
        let found = LinkExtractor.css(Array(css.utf8), url: sheet).map(\.description)
        #expect(found == [
            "http://site.test/css/a.css requisite css", "http://site.test/css/b.css requisite css",
            "http://site.test/css/c.css requisite css", "http://site.test/css/d.css requisite",
            "http://site.test/img/e.png requisite", "http://site.test/css/f.png requisite",
            "http://site.test/css/h%5C).png requisite",
        ])
    }

    @Test func readsAHugePageInOnePass() {
        // 5 MB: 50,000 comments never closed (each is read as text, as wget does, and must not send the
        // scanner to the end of the page each time), then 100,000 tags never closed, which the end tags
        // must not walk.
        var html = "<html><body>"
        for index in 0..<50_000 { html += "<p class=x><a href=\"p\(index).html\">link \(index)</a> text text text <!--" }
        while html.utf8.count < 5_000_000 { html += "<div>padding padding padding padding padding padding</div>" }
        let links = LinkExtractor.html(Array(html.utf8), url: Self.page).links
        #expect(links.count == 50_000 && links.last?.url.description == "http://site.test/dir/p49999.html")
        var unclosed = ""
        for index in 0..<100_000 { unclosed += "<div><span><a href=\"u\(index).html\"></p></b>" }
        #expect(LinkExtractor.html(Array(unclosed.utf8), url: Self.page).links.count == 100_000)
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        replacing(target, with: replacement)
    }
}
