import FarmOrigin
import FarmTestSupport
import Foundation
import Testing

/// Conditional GETs: every answer carries an ETag and a Last-Modified; matching validators get a 304 with
/// no body, which the request log counts apart from bodies.
@Suite struct ConditionalTests {
    @Test func matchingValidatorsAre304WithNoBodyAndNewBytesAreServedWhole() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        origin.serve(path: "/a.png", bytes: fixtureBytes(5000))
        let first = try Curl.fetch(origin.url(for: "/a.png"))
        let etag = try #require(first.headers["etag"]), modified = try #require(first.headers["last-modified"])
        #expect(modified == origin.lastModified(for: "/a.png") && modified.hasSuffix(" GMT"))

        let byTag = try Curl.fetch(origin.url(for: "/a.png"), ["--header", "If-None-Match: W/\(etag)"])
        #expect(byTag.status == 304 && byTag.body.isEmpty && byTag.headers["etag"] == etag)
        let byDate = try Curl.fetch(origin.url(for: "/a.png"), ["--header", "If-Modified-Since: \(modified)"])
        #expect(byDate.status == 304 && byDate.body.isEmpty)
        // If-None-Match alone decides when both are sent.
        let otherTag = try Curl.fetch(origin.url(for: "/a.png"),
                                      ["--header", "If-None-Match: \"other\"", "--header", "If-Modified-Since: \(modified)"])
        #expect(otherTag.status == 200 && otherTag.body.count == 5000)
        #expect(origin.served("/a.png") == ServedCounts(bodies: 2, notModified: 2, bodyBytes: 10_000))

        // New bytes: a new ETag and a later Last-Modified, so both old validators fetch them whole.
        origin.serve(path: "/a.png", bytes: fixtureBytes(4000, seed: 2))
        #expect(origin.etag(for: "/a.png") != etag && origin.lastModified(for: "/a.png") != modified)
        #expect(try Curl.fetch(origin.url(for: "/a.png"), ["--header", "If-None-Match: \(etag)"]).body.count == 4000)
        #expect(try Curl.fetch(origin.url(for: "/a.png"), ["--header", "If-Modified-Since: \(modified)"]).status == 200)
        origin.remove(path: "/a.png")
        #expect(try Curl.fetch(origin.url(for: "/a.png"), ["--header", "If-None-Match: \(etag)"]).status == 404)
    }
}
