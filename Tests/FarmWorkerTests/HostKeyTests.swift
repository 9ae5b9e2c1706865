@testable import FarmWorker
import Testing

/// The host a worker counts a transfer against (`farm_requests_total{host}`): scheme://host:port, read
/// off the URL's text.
@Suite struct HostKeyTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/a.jpg", "http://127.0.0.1:8080"),
        ("HTTPS://Example.ORG/b.pdf?x=1", "https://example.org:443"),
        ("http://example.org", "http://example.org:80"),
        ("http://user:pw@example.org:81/#top", "http://example.org:81"),
        ("http://[::1]/a", "http://[::1]:80"),
        ("http://[::1]:9000/a", "http://[::1]:9000"),
        ("garbage", "unknown"),
    ])
    func hostsAreSchemeHostAndPort(url: String, host: String) {
        #expect(WorkerMetrics.host(of: url) == host)
    }
}
