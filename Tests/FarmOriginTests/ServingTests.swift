import FarmOrigin
import FarmTestSupport
import Foundation
import Testing

/// The origin as a well-behaved server: bodies, validators, ranges, HEAD, keep-alive, directories.
@Suite struct ServingTests {
    @Test func fullGetReturnsTheExactBytesWithTheUsualHeaders() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(300_000)
        origin.serve(path: "/a.jpg", bytes: bytes, contentType: "image/jpeg")

        let got = try Curl.fetch(origin.url(for: "/a.jpg"))
        #expect(got.exit == 0, "\(got.error)")
        #expect(got.status == 200)
        #expect(Body(got.body) == Body(bytes))
        #expect(got.headers["content-length"] == "300000")
        #expect(got.headers["content-type"] == "image/jpeg")
        #expect(got.headers["accept-ranges"] == "bytes")
        let etag = try #require(got.headers["etag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
        #expect(etag == origin.etag(for: "/a.jpg"))
        #expect(origin.bytesServed == bytes.count)
        #expect(origin.requests.map(\.status) == [200])
        #expect(origin.requests.first?.complete == true)
    }

    @Test func etagFollowsTheBytes() throws {
        let origin = Origin()
        origin.serve(path: "/a", bytes: [1, 2, 3])
        origin.serve(path: "/b", bytes: [1, 2, 3])
        origin.serve(path: "/c", bytes: [1, 2, 4])
        #expect(origin.etag(for: "/a") == origin.etag(for: "/b"))
        #expect(origin.etag(for: "/a") != origin.etag(for: "/c"))
        #expect(origin.etag(for: "/nothing") == nil)
    }

    @Test func directoryFilesAreServedAndNothingOutsideIt() throws {
        let directory = TemporaryDirectory("farm-origin-dir")
        try FileManager.default.createDirectory(atPath: directory.appending("sub"), withIntermediateDirectories: true)
        let bytes = fixtureBytes(70_000, seed: 7)
        try Data(bytes).write(to: URL(fileURLWithPath: directory.appending("sub/p.pdf")))
        let origin = try startedOrigin()
        defer { origin.stop() }
        origin.serve(directory: directory.path, at: "/files")

        let got = try Curl.fetch(origin.url(for: "/files/sub/p.pdf"))
        #expect(got.exit == 0 && got.status == 200)
        #expect(Body(got.body) == Body(bytes))
        #expect(got.headers["content-type"] == "application/pdf")
        let saved = directory.appending("copy")
        try Data(got.body).write(to: URL(fileURLWithPath: saved))
        let sums = try run("/usr/bin/sha256sum", [directory.appending("sub/p.pdf"), saved])
        let digests = sums.output.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) }
        #expect(digests.count == 2 && digests[0] == digests[1])

        for escape in ["/files/../etc/passwd", "/files/sub/../../x", "/files/%2e%2e/etc/passwd", "/files/sub"] {
            let refused = try Curl.fetch(origin.url(for: escape), ["--path-as-is"])
            #expect(refused.status == 404, "\(escape)")
        }
    }

    @Test func rangeFromKToTheEndIsPartialContent() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(10_000)
        origin.serve(path: "/r", bytes: bytes)

        let got = try Curl.fetch(origin.url(for: "/r"), ["--header", "Range: bytes=4000-"])
        #expect(got.status == 206)
        #expect(Body(got.body) == Body(bytes[4000...]))
        #expect(got.headers["content-range"] == "bytes 4000-9999/10000")
        #expect(got.headers["content-length"] == "6000")
        #expect(got.headers["etag"] == origin.etag(for: "/r"))
    }

    @Test(arguments: [
        ("bytes=0-0", 0..<1), ("bytes=10-19", 10..<20), ("bytes=9990-20000", 9990..<10_000),
        ("bytes=-100", 9900..<10_000),
    ])
    func closedAndSuffixRanges(header: String, expected: Range<Int>) throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(10_000)
        origin.serve(path: "/r", bytes: bytes)

        let got = try Curl.fetch(origin.url(for: "/r"), ["--header", "Range: \(header)"])
        #expect(got.status == 206)
        #expect(Body(got.body) == Body(bytes[expected]))
        #expect(got.headers["content-range"] == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/10000")
        #expect(got.headers["content-length"] == String(expected.count))
    }

    @Test func unsatisfiableRangeIs416WithTheSize() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        origin.serve(path: "/r", bytes: fixtureBytes(1000))

        for header in ["bytes=1000-", "bytes=5000-6000", "bytes=-0"] {
            let got = try Curl.fetch(origin.url(for: "/r"), ["--header", "Range: \(header)"])
            #expect(got.status == 416, "\(header)")
            #expect(got.headers["content-range"] == "bytes */1000", "\(header)")
            #expect(got.body.isEmpty)
        }
    }

    @Test func rangesTheOriginDoesNotUnderstandAreIgnored() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(1000)
        origin.serve(path: "/r", bytes: bytes)

        for header in ["bytes=0-1,5-6", "items=0-5", "bytes=9-3", "bytes=x-"] {
            let got = try Curl.fetch(origin.url(for: "/r"), ["--header", "Range: \(header)"])
            #expect(got.status == 200, "\(header)")
            #expect(Body(got.body) == Body(bytes), "\(header)")
        }
    }

    @Test func ifRangeHonoursTheRangeOnlyForTheCurrentETag() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(5000)
        origin.serve(path: "/r", bytes: bytes)
        let etag = try #require(origin.etag(for: "/r"))

        let same = try Curl.fetch(origin.url(for: "/r"),
                                  ["--header", "Range: bytes=100-", "--header", "If-Range: \(etag)"])
        #expect(same.status == 206)
        #expect(Body(same.body) == Body(bytes[100...]))

        let stale = try Curl.fetch(origin.url(for: "/r"),
                                   ["--header", "Range: bytes=100-", "--header", "If-Range: \"not-it\""])
        #expect(stale.status == 200)
        #expect(Body(stale.body) == Body(bytes))
        #expect(stale.headers["content-range"] == nil)
    }

    @Test func headDescribesTheBodyWithoutSendingIt() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        origin.serve(path: "/h.png", bytes: fixtureBytes(12_345), contentType: "image/png")

        let got = try Curl.fetch(origin.url(for: "/h.png"), ["--head"])
        #expect(got.exit == 0, "\(got.error)")
        #expect(got.status == 200)
        #expect(got.headers["content-length"] == "12345")
        #expect(got.headers["content-type"] == "image/png")
        #expect(got.headers["etag"] == origin.etag(for: "/h.png"))
        #expect(got.headers["accept-ranges"] == "bytes")
        #expect(origin.requests.map(\.method) == ["HEAD"])
        #expect(origin.bytesServed == 0)
    }

    @Test func missingPathsAre404AndOtherMethods405() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        origin.serve(path: "/x", bytes: [1])
        #expect(try Curl.fetch(origin.url(for: "/nothing")).status == 404)
        let post = try Curl.fetch(origin.url(for: "/x"), ["--request", "POST", "--data", "a"])
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
    }

    @Test func oneConnectionCarriesManyRequests() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let a = fixtureBytes(50_000, seed: 1), b = fixtureBytes(60_000, seed: 2)
        origin.serve(path: "/a", bytes: a)
        origin.serve(path: "/b", bytes: b)
        let directory = TemporaryDirectory("farm-origin-keepalive")

        // One curl, three URLs: curl reuses its connection when the server keeps it open.
        let result = try run("/usr/bin/curl", [
            "--silent", "--show-error", "--max-time", "30", "--write-out", "%{num_connects}\n",
            "--output", directory.appending("1"), origin.url(for: "/a"),
            "--output", directory.appending("2"), origin.url(for: "/b"),
            "--output", directory.appending("3"), origin.url(for: "/a"),
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.split(separator: "\n") == ["1", "0", "0"])
        #expect(Body(FileManager.default.contents(atPath: directory.appending("2")) ?? Data()) == Body(b))
        let ports = origin.requests.map(\.clientPort)
        #expect(ports.count == 3)
        #expect(Set(ports).count == 1 && ports[0] != nil)
    }

    @Test func restartsOnTheSamePortAndRefusesATakenOne() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        origin.serve(path: "/x", bytes: [1, 2, 3])
        let port = origin.port
        #expect(port > 0)

        #expect(throws: OriginError.self) { try Origin(port: port).start() }

        origin.stop()
        #expect(!origin.isRunning)
        let down = try Curl.fetch(origin.url(for: "/x"))
        #expect(down.exit == 7)  // connection refused: the origin really is down
        try origin.start()
        #expect(origin.port == port)
        #expect(try Curl.fetch(origin.url(for: "/x")).body == [1, 2, 3])
    }

    /// Synchronous tests block the cooperative pool; the origin must answer all the same.
    @Test func servesWhileTheCooperativePoolIsBlocked() async throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(20_000)
        origin.serve(path: "/p", bytes: bytes)
        // Slow enough that the clients overlap, each blocking one pool thread while it waits.
        origin.inject(.throttle(bytesPerSecond: 40_000), at: "/p")
        let url = origin.url(for: "/p")
        let clients = ProcessInfo.processInfo.activeProcessorCount * 2
        let results = try await withThrowingTaskGroup(of: CurlResult.self) { group in
            for _ in 0..<clients {
                group.addTask { try Curl.fetch(url, maxTime: 60) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == clients)
        for result in results {
            #expect(result.exit == 0, "\(result.error)")
            #expect(Body(result.body) == Body(bytes))
        }
    }
}
