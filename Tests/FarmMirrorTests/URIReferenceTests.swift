import FarmMirror
import Testing

/// RFC 3986 §5.2's resolution over every example of §5.4, and WebURL's one form of a URL (wget's).
@Suite struct URIReferenceTests {
    static let base = URIReference(parsing: "http://a/b/c/d;p?q")

    /// §5.4.1, all of them.
    @Test(arguments: [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
        ("../../g", "http://a/g"),
    ])
    func resolvesNormalExamples(reference: String, expected: String) {
        #expect(URIReference(parsing: reference).resolved(against: Self.base).string == expected)
    }

    /// §5.4.2, all of them (strict: "http:g" keeps its scheme).
    @Test(arguments: [
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
    ])
    func resolvesAbnormalExamples(reference: String, expected: String) {
        #expect(URIReference(parsing: reference).resolved(against: Self.base).string == expected)
    }

    @Test func removesDotSegmentsAsSection524Shows() {
        #expect(URIReference.removingDotSegments("/a/b/c/./../../g") == "/a/g")
        #expect(URIReference.removingDotSegments("mid/content=5/../6") == "mid/6")
        #expect(URIReference.removingDotSegments("/..") == "/")
        #expect(URIReference.removingDotSegments("") == "")
    }

    @Test func normalizesSchemeHostPortPathAndDropsTheFragment() throws {
        let url = try #require(WebURL("HTTP://Example.COM:80/a/./b/../c#frag"))
        #expect(url.description == "http://example.com/a/c")
        #expect(WebURL("https://h:443")?.description == "https://h/")
        #expect(WebURL("https://h:8443/x?")?.description == "https://h:8443/x?")
        #expect(WebURL("http://h:/x")?.description == "http://h/x")
        #expect(WebURL("http://user:pw@H/x")?.description == "http://user:pw@h/x")
        #expect(WebURL("http://[::1]:8080/")?.hostAndPort == "[::1]:8080")
        #expect(WebURL("https://u@H:8443/a/b?c")?.robotsURL.description == "https://h:8443/robots.txt")
        // Percent-encoding is kept as written, case included; the path is case-sensitive.
        #expect(WebURL("http://h/%7euser/A%2fB")?.description == "http://h/%7euser/A%2fB")
    }

    @Test func refusesWhatIsNotAnHTTPURL() {
        for text in ["mailto:a@b", "javascript:void(0)", "ftp://h/x", "http:g", "http://", "http://h:99999/",
                     "http://h:8o/", "/relative", "data:text/html,x"] {
            #expect(WebURL(text) == nil, "\(text)")
        }
    }

    @Test func encodesWhatAURLCannotHoldAsWgetDoes() throws {
        let page = try #require(WebURL("http://h/dir/page.html"))
        #expect(page.resolving("a b.html")?.description == "http://h/dir/a%20b.html")
        #expect(page.resolving("x\"<>\\^`{|}.png")?.description == "http://h/dir/x%22%3C%3E%5C%5E%60%7B%7C%7D.png")
        #expect(page.resolving("100%.html")?.description == "http://h/dir/100%25.html")
        #expect(page.resolving("ok%41.html")?.description == "http://h/dir/ok%41.html")
        #expect(page.resolving("caf\u{E9}.html")?.description == "http://h/dir/caf%C3%A9.html")
        // Reserved characters and brackets stay as they are.
        #expect(page.resolving("a;b=c,d!$&'()*+[x]@:.html")?.description == "http://h/dir/a;b=c,d!$&'()*+[x]@:.html")
        #expect(page.resolving("//Other.Host:8080/../x#f")?.description == "http://other.host:8080/x")
        #expect(page.resolving("?q=1")?.description == "http://h/dir/page.html?q=1")
    }

    @Test func givesTheDirectoryAndFileNameWgetCompares() throws {
        let url = try #require(WebURL("http://h/a/b%20c/file%2Ename.html?q"))
        #expect(url.directory == "a/b c")
        #expect(url.fileName == "file.name.html")
        #expect(WebURL("http://h/")?.directory == "" && WebURL("http://h/")?.fileName == "")
        #expect(WebURL("http://h/x.html")?.directory == "")
    }
}
