import FarmSystem
import Testing

/// farm fetches http and https URLs only; the scheme is read off the text, in any case, and must be
/// followed by `://`.
@Suite struct WebSchemeTests {
    @Test(arguments: [("http://127.0.0.1/a.jpg", WebScheme.http), ("https://example.org/b.pdf", .https),
                      ("HTTP://EXAMPLE.ORG/", .http), ("hTtPs://x/y", .https), ("https://", .https)])
    func httpAndHttpsInAnyCaseAreWebURLs(url: String, scheme: WebScheme) {
        #expect(WebScheme(of: url) == scheme)
        #expect(WebScheme(bytes: Array(url.utf8)) == scheme)
        #expect(WebScheme(of: url)?.prefixLength == scheme.rawValue.count + 3)
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x.jpg", "javascript:alert(1)", "httpx://a/b",
                      "http", "https//a/b", "", "/a.jpg", " http://a/b", "htt://a", "http:/a", "http:a.jpg",
                      "httpss://a", "https:"])
    func everyOtherSchemeOrNoneIsRefused(url: String) {
        #expect(WebScheme(of: url) == nil)
    }

    @Test func eachSchemeHasItsPort() {
        #expect(WebScheme.http.defaultPort == 80 && WebScheme.https.defaultPort == 443)
    }
}
