@testable import FarmMirror
import Testing

/// wget's `-k` on one file (convert.c): relative paths between the mirror's files, absolute URLs for what
/// was not fetched, `<base>` emptied, the rest of the bytes kept.
@Suite struct LinkRewriteTests {
    static let page = WebURL("http://site.test/dir/page.html")!

    /// `html` (a page at `site.test/dir/page.html` of the mirror) rewritten, with `fetched` the URLs fetched
    /// and their files.
    static func rewrite(_ html: String, fetched: [String: String], css: Bool = false) -> String {
        let bytes = Array(html.utf8)
        let spans = css ? LinkExtractor.spans(css: bytes, url: page) : LinkExtractor.spans(html: bytes, url: page)
        let files = Dictionary(uniqueKeysWithValues: fetched.map { (WebURL($0.key)!, $0.value) })
        return String(decoding: LinkRewrite.rewrite(bytes, spans: spans, file: "site.test/dir/page.html") { files[$0] },
                      as: UTF8.self)
    }

    @Test func relativePathsAreWgetsConstructRelative() {
        #expect(LinkRewrite.relative(from: "h/dir/page.html", to: "h/dir/other.html") == "other.html")
        #expect(LinkRewrite.relative(from: "h/dir/page.html", to: "h/img/a.png") == "../img/a.png")
        #expect(LinkRewrite.relative(from: "h/a/b/c.html", to: "h/a/x/y/z.png") == "../x/y/z.png")
        #expect(LinkRewrite.relative(from: "h/index.html", to: "h/s1/index.html") == "s1/index.html")
        #expect(LinkRewrite.relative(from: "h/page.html", to: "h/page.html") == "page.html")
        #expect(LinkRewrite.relative(from: "h/dir/p.html", to: "other:8080/x.html") == "../../other:8080/x.html")
    }

    @Test func fetchedLinksBecomeRelativeAndOthersAbsolute() {
        let html = """
            <a href="other.html#part">o</a> <img src='/img/a.png'> <a href=missing.html>m</a>
            <a href="http://elsewhere.test/x">kept</a> <a href="//site.test/dir/gone.html">g</a>
            """
        let fetched = ["http://site.test/dir/other.html": "site.test/dir/other.html",
                       "http://site.test/img/a.png": "site.test/img/a.png"]
        #expect(Self.rewrite(html, fetched: fetched) == """
            <a href="other.html#part">o</a> <img src='../img/a.png'> <a href="http://site.test/dir/missing.html">m</a>
            <a href="http://elsewhere.test/x">kept</a> <a href="http://site.test/dir/gone.html">g</a>
            """)
    }

    @Test func baseIsEmptiedAndItsLinksResolvedAgainstIt() {
        let html = #"<base href="http://site.test/other/"><img src="pic.png"><a href="none.html">n</a>"#
        let fetched = ["http://site.test/other/pic.png": "site.test/other/pic.png"]
        #expect(Self.rewrite(html, fetched: fetched)
                == #"<base href=""><img src="../other/pic.png"><a href="http://site.test/other/none.html">n</a>"#)
    }

    @Test func srcsetCSSAndRefreshAreRewrittenInPlace() {
        let html = """
            <img srcset="a.png 1x, b.png 2x"><div style="background: url('c.png')"></div>
            <style>@import "d.css";</style><meta http-equiv="refresh" content="5; url=next.html">
            """
        let fetched = ["a.png", "b.png", "c.png", "d.css", "next.html"].reduce(into: [String: String]()) {
            $0["http://site.test/dir/" + $1] = "site.test/dir/sub/" + $1
        }
        #expect(Self.rewrite(html, fetched: fetched) == """
            <img srcset="sub/a.png 1x, sub/b.png 2x"><div style="background: url('sub/c.png')"></div>
            <style>@import "sub/d.css";</style><meta http-equiv="refresh" content="5; URL=sub/next.html">
            """)
    }

    @Test func fileNamesAreQuotedAsWgetQuotesThem() {
        let fetched = ["http://site.test/dir/a%20b.html": "site.test/dir/a b.html",
                       "http://site.test/dir/q.html?x=1;y=2": "site.test/dir/q.html?x=1;y=2",
                       "http://site.test/dir/100%25.css": "site.test/dir/100%.css"]
        #expect(Self.rewrite(#"<a href="a%20b.html">1</a><a href="q.html?x=1;y=2">2</a>"#, fetched: fetched)
                == #"<a href="a&#32;b.html">1</a><a href="q.html?x=1%3By=2">2</a>"#)
        #expect(Self.rewrite("a { background: url(100%25.css) }", fetched: fetched, css: true)
                == "a { background: url(100%25.css) }")
    }
}
