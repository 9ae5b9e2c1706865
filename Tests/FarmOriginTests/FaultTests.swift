import FarmOrigin
import FarmTestSupport
import Foundation
import Testing

/// The origin misbehaving on demand, each fault seen by a real client (curl) the way farm will see it.
@Suite struct FaultTests {
    @Test func failsNTimesWithRetryAfterThenServes() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(2000)
        origin.serve(path: "/f", bytes: bytes)
        origin.fail(2, with: 503, retryAfter: 7, at: "/f")

        let first = try Curl.fetch(origin.url(for: "/f"))
        #expect(first.status == 503)
        #expect(first.headers["retry-after"] == "7")
        #expect(first.body != bytes)
        #expect(try Curl.fetch(origin.url(for: "/f")).status == 503)
        let third = try Curl.fetch(origin.url(for: "/f"))
        #expect(third.status == 200)
        #expect(third.headers["retry-after"] == nil)
        #expect(Body(third.body) == Body(bytes))
        #expect(origin.requests.map(\.status) == [503, 503, 200])
        #expect(origin.faults(at: "/f").isEmpty)
    }

    @Test(arguments: [500, 429, 408, 404, 410, 403])
    func fixedStatusesWithoutRetryAfter(status: Int) throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        origin.serve(path: "/s", bytes: fixtureBytes(100))
        origin.inject(.status(status), at: "/s")

        for _ in 0..<2 {
            let got = try Curl.fetch(origin.url(for: "/s"))
            #expect(got.status == status)
            #expect(got.headers["retry-after"] == nil)
            #expect(got.headers["content-length"] == String(got.body.count))
            #expect(!got.body.isEmpty)
        }
    }

    @Test(arguments: [(100_000, 30_000), (4_000_000, 3_000_000)])
    func cutShortIsSeenByTheClientAsAPartialFile(size: Int, cut: Int) throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(size)
        origin.serve(path: "/c", bytes: bytes)
        origin.inject(.cutShort(afterBytes: cut), at: "/c", times: 1)

        let first = try Curl.fetch(origin.url(for: "/c"))
        #expect(first.exit == 18, "\(first.error)")  // CURLE_PARTIAL_FILE
        #expect(first.headers["content-length"] == String(size))
        #expect(Body(first.body) == Body(bytes[..<cut]))

        // The resumed download asks for the rest, and the origin served the corpus exactly once.
        let rest = try Curl.fetch(origin.url(for: "/c"), ["--continue-at", String(cut)])
        #expect(rest.exit == 0, "\(rest.error)")
        #expect(rest.status == 206)
        #expect(Body(first.body + rest.body) == Body(bytes))
        let log = origin.requests
        #expect(log.count == 2)
        #expect(log.first?.complete == false && log.first?.bodyBytes == cut)
        #expect(log.last?.range == "bytes=\(cut)-")
        #expect(log.last?.rangeStart == cut)
        #expect(origin.bytesServed == bytes.count)
    }

    @Test(arguments: [nil, 0, 5000] as [Int?])
    func resetIsSeenByTheClientAsAReceiveFailure(afterBytes: Int?) throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(100_000)
        origin.serve(path: "/x", bytes: bytes)
        origin.inject(.reset(afterBytes: afterBytes), at: "/x")

        let got = try Curl.fetch(origin.url(for: "/x"))
        #expect(got.exit == 56, "\(got.error)")  // CURLE_RECV_ERROR
        #expect(got.error.contains("reset"), "\(got.error)")
        // The origin waits for the bytes to be acknowledged before the reset, so none is lost in flight.
        #expect(Body(got.body) == Body(afterBytes.map { Array(bytes[..<$0]) } ?? []))
        let logged = try #require(origin.requests.first)
        #expect(logged.status == (afterBytes == nil ? nil : 200))
        #expect(logged.bodyBytes == afterBytes ?? 0)
        #expect(!logged.complete)
    }

    @Test func stallIsSeenByTheClientAsATimeOut() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(50_000)
        origin.serve(path: "/s", bytes: bytes)
        origin.inject(.stall(afterBytes: 1000), at: "/s")

        let got = try Curl.fetch(origin.url(for: "/s"), maxTime: 2)
        #expect(got.exit == 28, "\(got.error)")  // CURLE_OPERATION_TIMEDOUT
        #expect(got.headers["content-length"] == "50000")
        #expect(Body(got.body) == Body(bytes[..<1000]))
        #expect(origin.requests.first?.bodyBytes == 1000)
        #expect(origin.requests.first?.complete == false)
        // Once the client has gone, the origin lets go of the connection too.
        #expect(poll { openServerConnections(port: origin.port) == 0 })
    }

    @Test func stopEndsAStalledTransfer() throws {
        let origin = try startedOrigin()
        origin.serve(path: "/s", bytes: fixtureBytes(50_000))
        origin.inject(.stall(afterBytes: 10), at: "/s")
        let directory = TemporaryDirectory("farm-origin-stall")
        let client = try ChildProcess("/usr/bin/curl", ["--silent", "--max-time", "120", "--output",
                                                        directory.appending("body"), origin.url(for: "/s")])
        defer { client.kill() }
        #expect(poll { origin.requests.first?.bodyBytes == 10 })

        origin.stop()
        // The connection is dropped, so the client learns at once that the body will not come.
        #expect(client.wait(timeout: 60) == 18)
    }

    @Test func redirectToAnotherPathIsFollowed() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(3000)
        origin.serve(path: "/target.jpg", bytes: bytes, contentType: "image/jpeg")
        origin.inject(.redirect(to: origin.url(for: "/target.jpg"), status: 301), at: "/old.jpg")
        origin.inject(.redirect(to: "/old.jpg"), at: "/older.jpg")  // relative, as some servers send

        let got = try Curl.fetch(origin.url(for: "/older.jpg"), ["--location"])
        #expect(got.exit == 0, "\(got.error)")
        #expect(got.status == 200)
        #expect(Body(got.body) == Body(bytes))
        #expect(got.statusLines.count == 3)
        #expect(origin.requests.map(\.path) == ["/older.jpg", "/old.jpg", "/target.jpg"])
        #expect(origin.requests.map(\.status) == [302, 301, 200])

        let unfollowed = try Curl.fetch(origin.url(for: "/old.jpg"))
        #expect(unfollowed.status == 301)
        #expect(unfollowed.headers["location"] == origin.url(for: "/target.jpg"))
    }

    // "=http,https" allows only these; a bare "http,https" adds them to curl's defaults, which refuse file:
    // but allow ftp. The ftp target is on loopback all the same, should a client follow it.
    @Test(arguments: [("file:///etc/passwd", "http,https"), ("file:///etc/passwd", "=http,https"),
                      ("ftp://127.0.0.1:1/x", "=http,https")])
    func redirectToAnotherSchemeIsRefusedByACarefulClient(location: String, protocols: String) throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        origin.inject(.redirect(to: location), at: "/evil.jpg")

        let got = try Curl.fetch(origin.url(for: "/evil.jpg"), ["--location", "--proto-redir", protocols])
        #expect(got.exit == 1, "\(got.error)")  // CURLE_UNSUPPORTED_PROTOCOL
        #expect(got.statusLines.count == 1)
        #expect(got.headers["location"] == location)
        #expect(!String(decoding: got.body, as: UTF8.self).contains("root:"))
        #expect(origin.requests.count == 1)
    }

    @Test func throttledTransferTakesAtLeastSizeOverRate() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(60_000)
        origin.serve(path: "/t", bytes: bytes)
        origin.inject(.throttle(bytesPerSecond: 40_000), at: "/t")

        let clock = ContinuousClock()
        let start = clock.now
        let got = try Curl.fetch(origin.url(for: "/t"))
        let elapsed = clock.now - start
        #expect(got.exit == 0, "\(got.error)")
        #expect(Body(got.body) == Body(bytes))
        #expect(elapsed >= .milliseconds(1500))  // 60 000 B at 40 000 B/s; a lower bound only
    }

    @Test func throttledRangeRequestIsAlsoSlowed() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(50_000)
        origin.serve(path: "/t", bytes: bytes)
        origin.inject(.throttle(bytesPerSecond: 20_000), at: "/t")

        let clock = ContinuousClock()
        let start = clock.now
        let got = try Curl.fetch(origin.url(for: "/t"), ["--range", "30000-"])
        #expect(clock.now - start >= .seconds(1))  // 20 000 B at 20 000 B/s
        #expect(got.status == 206)
        #expect(Body(got.body) == Body(bytes[30_000...]))
    }

    @Test func rangesOffAlwaysSendsTheWholeBody() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(4000)
        origin.serve(path: "/n", bytes: bytes)
        origin.inject(.rangesOff, at: "/n")

        let got = try Curl.fetch(origin.url(for: "/n"), ["--header", "Range: bytes=1000-"])
        #expect(got.status == 200)
        #expect(Body(got.body) == Body(bytes))
        #expect(got.headers["content-range"] == nil)
        #expect(got.headers["accept-ranges"] == "none")
        #expect(origin.requests.first?.range == "bytes=1000-")
    }

    @Test func faultsCombineAndCanBeCleared() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(10_000)
        origin.serve(path: "/m", bytes: bytes)
        origin.fail(1, with: 500, at: "/m")
        origin.inject(.cutShort(afterBytes: 100), at: "/m", times: 1)
        origin.inject(.rangesOff, at: "/m")

        #expect(try Curl.fetch(origin.url(for: "/m")).status == 500)
        // A Range header rather than --continue-at: curl gives up on a resume answered with 200.
        let cut = try Curl.fetch(origin.url(for: "/m"), ["--header", "Range: bytes=50-"])
        #expect(cut.exit == 18, "\(cut.error)")
        #expect(cut.status == 200)  // ranges off: the whole body was started, from byte 0
        #expect(Body(cut.body) == Body(bytes[..<100]))
        #expect(origin.faults(at: "/m") == [.rangesOff])

        origin.clearFaults(at: "/m")
        let whole = try Curl.fetch(origin.url(for: "/m"), ["--header", "Range: bytes=50-"])
        #expect(whole.status == 206)
        #expect(Body(whole.body) == Body(bytes[50...]))
    }

    @Test func requestLogRecordsWhatWasAskedAndSent() throws {
        let origin = try startedOrigin()
        defer { origin.stop() }
        let bytes = fixtureBytes(8000)
        origin.serve(path: "/l", bytes: bytes)

        _ = try Curl.fetch(origin.url(for: "/l?x=1"))
        _ = try Curl.fetch(origin.url(for: "/l"), ["--continue-at", "3000"])
        let log = origin.requests(for: "/l")
        #expect(log.count == 2)
        #expect(log[0].query == "x=1")
        #expect(log[0].range == nil && log[0].rangeStart == nil)
        #expect(log[1].range == "bytes=3000-")
        #expect(log[1].rangeStart == 3000)
        #expect(log[1].status == 206 && log[1].bodyBytes == 5000 && log[1].complete)
        #expect(origin.bytesServed == 8000 + 5000)

        origin.clearRequests()
        #expect(origin.requests.isEmpty && origin.bytesServed == 0)
    }
}

/// Connections the server side of 127.0.0.1:`port` still holds open (ESTABLISHED or CLOSE_WAIT), from
/// /proc/net/tcp.
private func openServerConnections(port: Int) -> Int {
    let table = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)) ?? ""
    let local = String(format: ":%04X", port)
    return table.split(separator: "\n").dropFirst().filter { line in
        let fields = line.split(separator: " ")
        return fields.count > 3 && fields[1].hasSuffix(local) && (fields[3] == "01" || fields[3] == "08")
    }.count
}
