@testable import FarmWorker
import Testing

/// A worker fetches only http and https URLs; it reads the scheme off the text itself.
@Suite struct SchemeTests {
    @Test(arguments: ["http://127.0.0.1/a.jpg", "https://example.org/b.pdf", "HTTP://EXAMPLE.ORG/", "hTtPs://x/y"])
    func httpAndHttpsInAnyCaseAreFetched(url: String) {
        #expect(Worker.isHTTP(url))
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x.jpg", "javascript:alert(1)", "httpx://a/b",
                      "http", "https//a/b", "", "/a.jpg", " http://a/b", "htt://a"])
    func everyOtherSchemeOrNoneIsRefused(url: String) {
        #expect(!Worker.isHTTP(url))
    }
}
