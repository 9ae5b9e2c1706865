import FarmOrigin
import FarmTestSupport
import Foundation
import Testing

/// SPEC §5, the HTTP rows: 4xx fail at once; 5xx, resets, cut-short bodies and stalls are retried with
/// back-off, resuming by range, then fail; redirects are followed to http(s) only.
/// Real `farm work` processes against a real origin; every manifest also holds one good resource.
@Suite struct BadHTTPTests {
    @Test func clientErrorsFailAtOnceWithTheirStatus() throws {
        let h = try BadInputHarness()
        let statuses = [410, 403, 401, 400]
        for status in statuses { h.origin.inject(.status(status), at: "/\(status).jpg") }
        let good = try h.add(statuses.map { "/\($0).jpg" })

        try h.work()

        for (index, status) in statuses.enumerated() {
            try h.expectFailed(index, attempts: 1) { $0 == "HTTP \(status)" }
            #expect(h.origin.requests(for: "/\(status).jpg").count == 1, "HTTP \(status) was retried")
            #expect(try h.outputs(index).isEmpty)
        }
        try h.expectGoodDone(good)
    }

    /// The default policy: 5 attempts, waits of at least 0.5, 1, 2 and 4 s.
    @Test func transientFailuresThatNeverEndAreRetriedWithBackOffThenFail() throws {
        let h = try BadInputHarness()
        let body = BadInputHarness.jpegLike(100_000)
        h.origin.inject(.status(500), at: "/down.jpg")
        h.origin.serve(path: "/cut.jpg", bytes: body)
        h.origin.inject(.cutShort(afterBytes: 10_000), at: "/cut.jpg")
        h.origin.serve(path: "/refused.jpg", bytes: body)
        h.origin.inject(.reset(), at: "/refused.jpg")
        let good = try h.add(["/down.jpg", "/cut.jpg", "/refused.jpg"])

        let start = Date()
        try h.work()
        let elapsed = Date().timeIntervalSince(start)

        try h.expectFailed(0, attempts: 5) { $0 == "HTTP 500" }
        try h.expectFailed(1, attempts: 5) { $0.hasPrefix("body cut short") }
        try h.expectFailed(2, attempts: 5) { $0.lowercased().contains("reset") }
        #expect(h.origin.requests(for: "/down.jpg").count == 5)
        #expect(h.origin.requests(for: "/cut.jpg").count == 5)
        // One more for each attempt that found a connection the worker's pool kept alive: curl retries
        // that reset itself, on a fresh connection.
        #expect((5...10).contains(h.origin.requests(for: "/refused.jpg").count))
        // Each retry of the cut body asked only for what was missing.
        let ranges = h.origin.requests(for: "/cut.jpg").map(\.rangeStart)
        #expect(ranges == [nil, 10_000, 20_000, 30_000, 40_000], "\(ranges)")
        // Three jobs at once (the worker's transfers), each waiting at least 0.5 + 1 + 2 + 4 s between its
        // attempts.
        #expect(elapsed >= 7.5, "no back-off: \(elapsed) s")
        for index in 0..<3 { #expect(try h.outputs(index).isEmpty) }
        #expect(try BadInputHarness.files(below: h.spool().partial).isEmpty, "partial bytes left behind")
        try h.expectGoodDone(good)
    }

    @Test func resetAndCutShortBodiesAreRetriedAndResumeByRange() throws {
        let h = try BadInputHarness()
        let body = BadInputHarness.jpegLike(300_000)
        for path in ["/reset.jpg", "/cut.jpg", "/refused.jpg", "/busy.jpg"] { h.origin.serve(path: path, bytes: body) }
        h.origin.inject(.reset(afterBytes: 40_000), at: "/reset.jpg", times: 1)
        h.origin.inject(.cutShort(afterBytes: 50_000), at: "/cut.jpg", times: 1)
        h.origin.inject(.reset(), at: "/refused.jpg", times: 1)
        h.origin.fail(2, with: 503, retryAfter: 1, at: "/busy.jpg")
        let good = try h.add(["/reset.jpg", "/cut.jpg", "/refused.jpg", "/busy.jpg"])

        try h.work()

        for index in 0..<4 { try h.expectDone(index, bytes: body) }
        let attempts = try (0..<4).map { try h.sidecar($0).attempts }
        #expect(attempts[0] == 2 && attempts[1] == 2 && attempts[3] == 3, "\(attempts)")
        // A reset before any byte on a kept-alive connection is retried by curl itself, once, on a new
        // one: the worker counts a second attempt only when the connection was fresh (jobs are claimed in
        // random order). Either way the origin saw exactly two requests.
        #expect((1...2).contains(attempts[2]), "\(attempts)")
        #expect(h.origin.requests(for: "/reset.jpg").map(\.rangeStart) == [nil, 40_000])
        #expect(h.origin.requests(for: "/cut.jpg").map(\.rangeStart) == [nil, 50_000])
        // A reset before any byte leaves nothing to resume: the retry asks for the whole body.
        #expect(h.origin.requests(for: "/refused.jpg").map(\.rangeStart) == [nil, nil])
        try h.expectGoodDone(good)
    }

    /// A retry resumes by range only if the bytes it holds are still those of the resource: a resource
    /// replaced between two attempts must not end as the old head spliced onto the new tail (RFC 9110
    /// §13.1.5: a resumed GET sends `If-Range` with the validator of the bytes it holds).
    @Test func aResourceReplacedBetweenAttemptsIsNotSpliced() throws {
        let h = try BadInputHarness()
        let old = BadInputHarness.jpegLike(200_000)
        let new = [0xFF, 0xD8, 0xFF, 0xE1] + (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) }
        h.origin.serve(path: "/changing.jpg", bytes: old)
        h.origin.inject(.cutShort(afterBytes: 50_000), at: "/changing.jpg", times: 1)
        let good = try h.add(["/changing.jpg"])

        let worker = try ChildProcess("farm", ["work", "--exit-when-idle", "--spool", h.spoolPath])
        // Swap the resource while the worker waits to retry (at least 0.5 s).
        let cut = poll(timeout: 60, every: 0.002) { h.origin.requests(for: "/changing.jpg").first?.bodyBytes == 50_000 }
        h.origin.serve(path: "/changing.jpg", bytes: new)
        let requestsAtSwap = h.origin.requests(for: "/changing.jpg").count
        try #require(worker.wait(timeout: 120) == 0, "farm work: \(worker.standardError)")
        try #require(cut && requestsAtSwap == 1, "the swap came too late: \(h.origin.requests)")

        let bytes = try BadInputHarness.bytes(try #require(try h.sidecar(0).file))
        let spliced = bytes == Array(old[..<50_000] + new[50_000...])
        let whole = bytes == new  // a Bool: a failed `#expect(a == b)` would print every byte
        #expect(whole, "\(spliced ? "old head + new tail" : "other bytes"): \(h.origin.requests)")
        try h.expectGoodDone(good)
    }

    /// A body that stops without closing is a time-out once no byte came for `--stall-timeout` seconds.
    @Test(.timeLimit(.minutes(3)))
    func aStalledBodyTimesOutAndResumesByRange() throws {
        let h = try BadInputHarness()
        let body = BadInputHarness.jpegLike(200_000)
        h.origin.serve(path: "/stall.jpg", bytes: body)
        h.origin.inject(.stall(afterBytes: 60_000), at: "/stall.jpg", times: 1)
        let good = try h.add(["/stall.jpg"])

        let start = Date()
        try h.work(["--stall-timeout", "3"])
        let elapsed = Date().timeIntervalSince(start)

        let result = try h.expectDone(0, bytes: body)
        #expect(result.attempts == 2)
        #expect(h.origin.requests(for: "/stall.jpg").map(\.rangeStart) == [nil, 60_000])
        #expect(elapsed >= 2.5, "the stall ended after \(elapsed) s, before the time-out")
        try h.expectGoodDone(good)
    }

    @Test func redirectsAreFollowedToHTTPOnly() throws {
        let h = try BadInputHarness()
        let body = BadInputHarness.jpegLike(50_000)
        h.origin.serve(path: "/real.jpg", bytes: body)
        h.origin.inject(.redirect(to: h.origin.url(for: "/real.jpg"), status: 301), at: "/moved.jpg")
        h.origin.inject(.redirect(to: "/real.jpg", status: 307), at: "/relative.jpg")
        h.origin.inject(.redirect(to: "file:///etc/passwd"), at: "/to-file.jpg")
        h.origin.inject(.redirect(to: "ftp://127.0.0.1:1/x.jpg"), at: "/to-ftp.jpg")
        h.origin.inject(.redirect(to: "gopher://127.0.0.1:1/x"), at: "/to-gopher.jpg")
        h.origin.inject(.redirect(to: "/loop.jpg"), at: "/loop.jpg")
        let good = try h.add(["/moved.jpg", "/relative.jpg", "/to-file.jpg", "/to-ftp.jpg", "/to-gopher.jpg",
                              "file:///etc/passwd", "javascript:alert(1)", "/loop.jpg"])

        try h.work()

        try h.expectDone(0, bytes: body)
        try h.expectDone(1, bytes: body)
        #expect(h.origin.requests(for: "/real.jpg").count == 2)
        for index in 2...6 {
            try h.expectFailed(index, attempts: 1) { $0.hasPrefix("not an http(s) URL") }
            #expect(try h.outputs(index).isEmpty)
        }
        for path in ["/to-file.jpg", "/to-ftp.jpg", "/to-gopher.jpg"] {
            #expect(h.origin.requests(for: path).count == 1, "\(path) was retried")
        }
        // A loop ends at curl's limit of 10 redirects, once: it is not retried.
        try h.expectFailed(7, attempts: 1) { $0 == "too many redirects" }
        #expect(h.origin.requests(for: "/loop.jpg").count == 11)
        // Never fetched: not one byte of /etc/passwd anywhere in the spool.
        let passwd = try BadInputHarness.bytes("/etc/passwd")
        for file in try BadInputHarness.files(below: h.spool().root) where file.size > 0 {
            let bytes = try BadInputHarness.bytes(file.path)
            let leaked = bytes == passwd || String(decoding: bytes, as: UTF8.self).contains("root:x:0:0")
            #expect(!leaked, "\(file.path) holds /etc/passwd")
        }
        try h.expectGoodDone(good)
    }
}
