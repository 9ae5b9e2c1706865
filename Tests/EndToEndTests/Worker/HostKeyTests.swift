import FarmHosts
import FarmSpool
import Testing

/// The host of a URL as the per-host limits and the per-host metrics count it: scheme://host:port, read
/// off the URL's text; its spool name (`raw`) is safe as a file name and reads back.
@Suite struct HostKeyTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/a.jpg", "http://127.0.0.1:8080"),
        ("HTTPS://Example.ORG/b.pdf?x=1", "https://example.org:443"),
        ("http://example.org", "http://example.org:80"),
        ("http://user:pw@example.org:81/#top", "http://example.org:81"),
        ("http://[::1]/a", "http://[::1]:80"),
        ("http://[::1]:9000/a", "http://[::1]:9000"),
        ("http://a_b.example/x", "http://a_b.example:80"),
    ])
    func hostsAreSchemeHostAndPort(url: String, host: String) throws {
        let key = try #require(HostKey(url: url))
        #expect(key.description == host)
        #expect(!key.raw.contains("/") && key.raw != "." && key.raw != "..")
        #expect(HostKey(raw: key.raw) == key)
    }

    @Test(arguments: ["garbage", "ftp://example.org/a", "http://", "http:///a", "http://h:99999/", "file:///etc/x"])
    func onlyHTTPURLsWithAHostHaveOne(url: String) {
        #expect(HostKey(url: url) == nil)
    }
}
