@testable import FarmMirror
import Testing

/// The decisions of wget's recur.c (`retrieve_tree`, `download_child`) with `-r -p`, and wget's names.
@Suite struct CrawlScopeTests {
    static let start = WebURL("http://site.test/docs/index.html")!

    static func link(_ text: String, requisite: Bool = false, html: Bool = true) -> FoundLink {
        FoundLink(url: start.resolving(text)!, isRequisite: requisite, expectsHTML: html && !requisite, expectsCSS: false)
    }

    @Test func readsPagesWithinTheLevelAndRequisitesTwoPast() {
        let scope = CrawlScope(start: Self.start, options: CrawlOptions(level: 3))
        #expect(scope.reading(depth: 0, contentType: "text/html; charset=utf-8", expectsHTML: true, expectsCSS: false) == .html)
        #expect(scope.reading(depth: 3, contentType: "TEXT/HTML", expectsHTML: true, expectsCSS: false) == .html)
        #expect(scope.reading(depth: 4, contentType: "text/html", expectsHTML: true, expectsCSS: false) == .html)
        #expect(scope.reading(depth: 5, contentType: "text/html", expectsHTML: true, expectsCSS: false) == .none)
        // HTML behind an <img>, or named .html but not HTML, is not read; CSS is, by type or by link.
        #expect(scope.reading(depth: 1, contentType: "text/html", expectsHTML: false, expectsCSS: false) == .none)
        #expect(scope.reading(depth: 1, contentType: "text/plain", expectsHTML: true, expectsCSS: false) == .none)
        #expect(scope.reading(depth: 1, contentType: "text/plain", expectsHTML: false, expectsCSS: true) == .css)
        #expect(scope.reading(depth: 1, contentType: "text/css", expectsHTML: false, expectsCSS: false) == .css)
        #expect(!scope.followsOnlyRequisites(depth: 2) && scope.followsOnlyRequisites(depth: 3))
        #expect(CrawlScope(start: Self.start, options: CrawlOptions(level: nil)).reading(
            depth: 100, contentType: "text/html", expectsHTML: true, expectsCSS: false) == .html)
    }

    @Test func admitsLinksAsDownloadChildDoes() {
        let scope = CrawlScope(start: Self.start, options: CrawlOptions(level: 2))
        let parent = Self.start
        #expect(scope.admits(Self.link("a.html"), parent: parent, parentDepth: 0) == nil)
        #expect(scope.admits(Self.link("a.html"), parent: parent, parentDepth: 2) == .notRequisiteOfLeaf)
        #expect(scope.admits(Self.link("i.png", requisite: true), parent: parent, parentDepth: 3) == nil)
        #expect(scope.admits(Self.link("http://other.test/a.html"), parent: parent, parentDepth: 0) == .otherHost)
        // wget compares the host alone: another port or https on the same host is in scope.
        #expect(scope.admits(Self.link("http://site.test:8080/a.html"), parent: parent, parentDepth: 0) == nil)
        #expect(scope.admits(Self.link("https://site.test/a.html"), parent: parent, parentDepth: 0) == nil)
        let spanning = CrawlScope(start: Self.start, options: CrawlOptions(spanHosts: true, domains: ["example.org"]))
        #expect(spanning.admits(Self.link("http://www.example.org/"), parent: parent, parentDepth: 0) == nil)
        #expect(spanning.admits(Self.link("http://badexample.org/"), parent: parent, parentDepth: 0) == .domain)
        #expect(spanning.admits(Self.link("http://site.test/x.html"), parent: parent, parentDepth: 0) == .domain)
        #expect(CrawlScope(start: Self.start, options: CrawlOptions(spanHosts: true))
            .admits(Self.link("http://anywhere.test/"), parent: parent, parentDepth: 0) == nil)
    }

    @Test func testsARedirectsTargetAsAPageLink() {
        let scope = CrawlScope(start: Self.start, options: CrawlOptions(level: 1, noParent: true, excludeDirectories: ["/docs/old"]))
        let original = Self.start.resolving("moved.html")!
        // At the level too (wget tests the target alone), but as a page link: --no-parent applies.
        #expect(scope.admitsRedirect(to: Self.start.resolving("new/page.html")!, from: original, depth: 1) == nil)
        #expect(scope.admitsRedirect(to: Self.start.resolving("/up.html")!, from: original, depth: 1) == .parent)
        #expect(scope.admitsRedirect(to: WebURL("http://elsewhere.test/docs/x.html")!, from: original, depth: 0) == .otherHost)
        // An excluded directory does not stop wget from reading a page it was redirected to.
        #expect(scope.admitsRedirect(to: Self.start.resolving("old/x.html")!, from: original, depth: 0) == nil)
    }

    @Test func keepsBelowTheStartDirectoryButForRequisites() {
        let scope = CrawlScope(start: Self.start, options: CrawlOptions(noParent: true))
        #expect(scope.admits(Self.link("sub/a.html"), parent: Self.start, parentDepth: 0) == nil)
        #expect(scope.admits(Self.link("b.html"), parent: Self.start, parentDepth: 0) == nil)
        #expect(scope.admits(Self.link("/docs"), parent: Self.start, parentDepth: 0) == .parent)
        #expect(scope.admits(Self.link("/docsother/a.html"), parent: Self.start, parentDepth: 0) == .parent)
        #expect(scope.admits(Self.link("../up.html"), parent: Self.start, parentDepth: 0) == .parent)
        #expect(scope.admits(Self.link("../img/logo.png", requisite: true), parent: Self.start, parentDepth: 0) == nil)
        // Another port of the host is not under --no-parent (wget: another "host").
        #expect(scope.admits(Self.link("http://site.test:81/up.html"), parent: Self.start, parentDepth: 0) == nil)
    }

    @Test func acceptsAndRejectsAsWgetDoes() {
        let scope = CrawlScope(start: Self.start, options: CrawlOptions(accept: ["jpg", "*.pn[gm]"], reject: ["thumb*"]))
        #expect(scope.admits(Self.link("a.jpg"), parent: Self.start, parentDepth: 0) == nil)
        #expect(scope.admits(Self.link("a.png"), parent: Self.start, parentDepth: 0) == nil)
        #expect(scope.admits(Self.link("a.gif"), parent: Self.start, parentDepth: 0) == .rejectedName)
        #expect(scope.admits(Self.link("thumb.jpg"), parent: Self.start, parentDepth: 0) == .rejectedName)
        #expect(scope.admits(Self.link("a.JPG"), parent: Self.start, parentDepth: 0) == .rejectedName)
        // HTML-named pages and directories are fetched for their links, and not delivered.
        #expect(scope.admits(Self.link("page.html"), parent: Self.start, parentDepth: 0) == nil)
        #expect(scope.admits(Self.link("page.SHTML"), parent: Self.start, parentDepth: 0) == nil)
        #expect(scope.admits(Self.link("sub/"), parent: Self.start, parentDepth: 0) == nil)
        #expect(scope.admits(Self.link("page.php"), parent: Self.start, parentDepth: 0) == .rejectedName)
        #expect(!scope.delivers(WebURL("http://site.test/docs/page.html")!))
        #expect(scope.delivers(WebURL("http://site.test/docs/a.jpg")!))
        // The query is part of the local name wget tests.
        #expect(!scope.delivers(WebURL("http://site.test/docs/a.jpg?size=2")!))
        #expect(CrawlScope(start: Self.start, options: CrawlOptions(accept: ["html"])).delivers(WebURL("http://site.test/docs/")!))
    }

    @Test func excludesDirectories() {
        let scope = CrawlScope(start: Self.start, options: CrawlOptions(excludeDirectories: ["/docs/private", "*/tmp"]))
        #expect(scope.admits(Self.link("private/a.html"), parent: Self.start, parentDepth: 0) == .excludedDirectory)
        #expect(scope.admits(Self.link("private/deeper/a.html"), parent: Self.start, parentDepth: 0) == .excludedDirectory)
        #expect(scope.admits(Self.link("privateer/a.html"), parent: Self.start, parentDepth: 0) == nil)
        #expect(scope.admits(Self.link("tmp/a.png", requisite: true), parent: Self.start, parentDepth: 0) == .excludedDirectory)
        #expect(scope.admits(Self.link("x/tmp/a.html"), parent: Self.start, parentDepth: 0) == nil)
    }

    @Test func parsesOptionLists() {
        #expect(CrawlOptions.list(" jpg, png ,,gif") == ["jpg", "png", "gif"])
        #expect(CrawlOptions.level("inf") == .some(nil) && CrawlOptions.level("3") == .some(3))
        #expect(CrawlOptions.level("-1") == nil && CrawlOptions.level("x") == nil)
    }

    @Test func matchesGlobsAsFnmatch() {
        #expect(Glob.matches("*.jpg", "a.jpg") && !Glob.matches("*.jpg", "a.jpeg"))
        #expect(Glob.matches("a?c", "abc") && Glob.matches("[!x]b", "ab") && !Glob.matches("[!a]b", "ab"))
        #expect(Glob.matches("[a-c]*", "bzz") && Glob.matches("\\*", "*") && !Glob.matches("\\*", "a"))
        #expect(Glob.matches("*", "a/b") && !Glob.matches("*", "a/b", pathname: true))
        #expect(Glob.matches("a*b*c*d", "aXbYcZd") && !Glob.matches("a*b*c*d", "aXbYcZ"))
    }

    @Test func namesFilesAsWget() {
        func name(_ text: String) -> String { MirrorName.relativePath(for: WebURL(text)!) }
        #expect(name("http://site.test/") == "site.test/index.html")
        #expect(name("http://site.test/a/b/") == "site.test/a/b/index.html")
        #expect(name("http://site.test/a//b.html") == "site.test/a/b.html")
        #expect(name("http://Site.test:8080/a/b.css") == "site.test:8080/a/b.css")
        #expect(name("https://site.test:443/x") == "site.test/x")
        #expect(name("http://site.test/list?page=2&q=a%2Fb") == "site.test/list?page=2&q=a%2Fb")
        #expect(name("http://site.test/dir/?x=") == "site.test/dir/index.html?x=")
        #expect(name("http://site.test/a%20b/c%2e%2e/%2E%2E/x%01.png") == "site.test/a b/c../%2E%2E/x%01.png")
    }
}
