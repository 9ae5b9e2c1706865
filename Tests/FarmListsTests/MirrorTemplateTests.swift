import FarmLists
import Testing

/// `{host}/{path}`, a recursive list's default name below `--out` (SPEC §18): wget's layout, each segment
/// made safe as SPEC §12 says.
@Suite struct MirrorTemplateTests {
    static func path(_ url: String) throws -> String {
        try DeliveryTemplate(DeliveryTemplate.mirrorText)
            .path(DeliveryTemplate.Values(list: "site", index: 0, width: 1, id: "", url: url, title: nil))
    }

    @Test func namesAreWgets() throws {
        #expect(try Self.path("http://Site.test/docs/") == "site.test/docs/index.html")
        #expect(try Self.path("http://site.test") == "site.test/index.html")
        #expect(try Self.path("http://site.test:8080/a/b.css") == "site.test:8080/a/b.css")
        #expect(try Self.path("https://site.test:443/p.html?x=1") == "site.test/p.html?x=1")
        #expect(try Self.path("http://site.test/a%20b/c%2Fd.html") == "site.test/a b/c%2Fd.html")
    }

    @Test func segmentsAreMadeSafe() throws {
        #expect(try Self.path("http://site.test/a/%2E%2E/b.html") == "site.test/a/%2E%2E/b.html")
        #expect(try Self.path("http://site.test/x%01y.html") == "site.test/x%01y.html")
        let long = String(repeating: "n", count: 300) + ".html"
        let named = try Self.path("http://site.test/" + long)
        #expect(named.split(separator: "/").allSatisfy { $0.utf8.count <= 255 } && named.hasSuffix(".html"))
        // {host} alone tells no two resources of a list apart.
        #expect(throws: DeliveryError.self) { try DeliveryTemplate("{host}/page.html") }
    }
}
