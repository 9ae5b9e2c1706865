import FarmOrigin
import FarmTestSupport
@testable import FarmTransfer
import Foundation
import Glibc
import SystemPackage
import Testing

/// EasyHandle against a real origin on 127.0.0.1: bytes, ranges, limits and every failure kind.
@Suite struct DownloadTests {
    let origin = Origin()
    let body: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    init() throws {
        try origin.start()
        origin.serve(path: "/data.bin", bytes: body)
    }

    /// Opens (creating) `name` in `dir` for the download, optionally pre-filled with `prefix`.
    private func partial(_ dir: TemporaryDirectory, _ prefix: [UInt8] = []) throws -> FileDescriptor {
        let path = dir.appending("partial")
        try Data(prefix).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDWR)
        try #require(fd >= 0)
        return FileDescriptor(rawValue: fd)
    }

    private func contents(_ dir: TemporaryDirectory) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: dir.appending("partial"))))
    }

    @Test func downloadsTheWholeBody() throws {
        let dir = TemporaryDirectory()
        let fd = try partial(dir)
        defer { try? fd.close() }
        var last = TransferProgress(bytes: 0, size: nil)
        let result = try EasyHandle().download(DownloadRequest(url: origin.url(for: "/data.bin")), into: fd) {
            last = $0
            return true
        }
        // The validators are the response's, as `farm sync` will send them back.
        let modified = try #require(result.modified)
        // The first bytes come back too: the worker tells the kind by them without reading the file.
        var expected = DownloadResult(httpStatus: 200, bytes: body.count, resumedFrom: 0,
                                      contentType: "application/octet-stream",
                                      etag: origin.etag(for: "/data.bin"), modified: modified)
        expected.head = Array(body.prefix(16))
        #expect(result == expected)
        #expect(result.etag != nil && modified.hasSuffix(" GMT"))
        #expect(try contents(dir) == body)
        #expect(last.size == body.count)
        origin.stop()
    }

    @Test func resumesFromTheBytesAlreadyThere() throws {
        let dir = TemporaryDirectory()
        let fd = try partial(dir, Array(body[0..<70_000]))
        defer { try? fd.close() }
        let result = try EasyHandle().download(DownloadRequest(url: origin.url(for: "/data.bin")), into: fd) { _ in true }
        #expect(result.httpStatus == 206 && result.resumedFrom == 70_000)
        #expect(try contents(dir) == body)
        #expect(origin.requests(for: "/data.bin").last?.range == "bytes=70000-")
        origin.stop()
    }

    @Test func startsOverWhenTheServerIgnoresRanges() throws {
        origin.inject(.rangesOff, at: "/data.bin")
        let dir = TemporaryDirectory()
        let fd = try partial(dir, Array(repeating: 0xEE, count: 5000))
        defer { try? fd.close() }
        let result = try EasyHandle().download(DownloadRequest(url: origin.url(for: "/data.bin")), into: fd) { _ in true }
        #expect(result.httpStatus == 200 && result.resumedFrom == 0)
        #expect(try contents(dir) == body)
        origin.stop()
    }

    /// With `followsRedirects` off (the worker's: it lets each request's host in first), a redirect ends the
    /// download with its target, resolved and http(s) only, and no byte written; the request that follows it
    /// carries what curl's own following would have: the list's cookies, its Authorization and Cookie headers
    /// to the chain's first host only, its other headers everywhere.
    @Test func aRedirectLeftToTheCallerNamesItsTargetAndTheNextRequestCarriesWhatCurlsWould() throws {
        let other = Origin(host: "127.0.0.2")
        try other.start()
        defer { other.stop() }
        origin.inject(.redirect(to: "/data.bin"), at: "/hop")  // relative: resolved against the URL asked
        other.serve(path: "/elsewhere", bytes: body)
        origin.inject(.redirect(to: "file:///etc/passwd"), at: "/sneaky")
        let options = RequestOptions(headers: ["Authorization: Bearer s3cret", "Cookie: extra=1", "X-Key: k"],
                                     cookies: ["127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tc00kie"])
        let handle = try EasyHandle()
        let dir = TemporaryDirectory()
        let fd = try partial(dir)
        defer { try? fd.close() }
        var request = DownloadRequest(url: origin.url(for: "/hop"), options: options)
        request.followsRedirects = false
        let hop = try handle.download(request, into: fd) { _ in true }
        #expect(hop.redirect == origin.url(for: "/data.bin") && hop.httpStatus == 302 && hop.bytes == 0, "\(hop)")
        #expect(try contents(dir).isEmpty)

        request.url = try #require(hop.redirect)
        request.redirected = .toSameHost
        let result = try handle.download(request, into: fd) { _ in true }
        #expect(result.redirect == nil && result.bytes == body.count)
        #expect(try contents(dir) == body)
        let landed = try #require(origin.requests(for: "/data.bin").last)
        #expect(landed.header("authorization") == ["Bearer s3cret"] && landed.header("x-key") == ["k"])
        #expect(landed.header("cookie").joined().contains("session=c00kie"), "\(landed.headers)")

        let elsewhere = DownloadRequest(url: other.url(for: "/elsewhere"), options: options)
        var away = elsewhere
        away.followsRedirects = false
        away.redirected = .toAnotherHost
        try fd.truncate(to: 0)
        _ = try handle.download(away, into: fd) { _ in true }
        let there = try #require(other.requests(for: "/elsewhere").last)
        #expect(there.header("authorization").isEmpty && there.header("cookie").isEmpty, "\(there.headers)")
        #expect(there.header("x-key") == ["k"])

        var sneaky = DownloadRequest(url: origin.url(for: "/sneaky"))
        sneaky.followsRedirects = false
        let refused = try #require(throws: TransferError.self) { try handle.download(sneaky, into: fd) { _ in true } }
        #expect(refused.kind == .permanent && refused.message == "not an http(s) URL: a redirect to file", "\(refused)")
        origin.stop()
    }

    @Test func sortsFailuresIntoTransientAndPermanent() throws {
        origin.inject(.status(404), at: "/missing")
        origin.fail(1, with: 503, retryAfter: 2, at: "/busy")
        origin.serve(path: "/busy", bytes: [1, 2, 3])
        origin.fail(1, with: 429, retryAfter: .date(inSeconds: 30), at: "/later")
        origin.inject(.redirect(to: "file:///etc/passwd"), at: "/sneaky")
        origin.inject(.cutShort(afterBytes: 1000), at: "/data.bin")
        let handle = try EasyHandle()
        func failure(_ url: String) throws -> TransferError {
            let dir = TemporaryDirectory()
            let fd = try partial(dir)
            defer { try? fd.close() }
            return try #require(throws: TransferError.self) {
                try handle.download(DownloadRequest(url: url), into: fd) { _ in true }
            }
        }
        let missing = try failure(origin.url(for: "/missing"))
        #expect(missing.kind == .permanent && missing.httpStatus == 404 && missing.message == "HTTP 404")
        let busy = try failure(origin.url(for: "/busy"))
        #expect(busy.kind == .transient && busy.httpStatus == 503 && busy.retryAfter == 2)
        // Retry-After as an HTTP date: the seconds until then (the date is whole seconds).
        let later = try failure(origin.url(for: "/later"))
        #expect(later.httpStatus == 429 && (28...30).contains(later.retryAfter ?? -1), "\(later)")
        let sneaky = try failure(origin.url(for: "/sneaky"))
        #expect(sneaky.kind == .permanent && sneaky.message.contains("not an http(s) URL"), "\(sneaky)")
        let ftp = try failure("ftp://127.0.0.1/x.jpg")
        #expect(ftp.kind == .permanent && ftp.message.contains("not an http(s) URL"))
        let cut = try failure(origin.url(for: "/data.bin"))
        #expect(cut.kind == .transient && cut.message.contains("cut short"))
        origin.stop()
    }

    @Test func cutShortThenResumedGivesTheExactBytes() throws {
        origin.inject(.cutShort(afterBytes: 50_000), at: "/data.bin", times: 1)
        let dir = TemporaryDirectory()
        let fd = try partial(dir)
        defer { try? fd.close() }
        let handle = try EasyHandle()
        #expect(throws: TransferError.self) {
            try handle.download(DownloadRequest(url: origin.url(for: "/data.bin")), into: fd) { _ in true }
        }
        #expect(try contents(dir).count == 50_000)
        let result = try handle.download(DownloadRequest(url: origin.url(for: "/data.bin")), into: fd) { _ in true }
        #expect(result.resumedFrom == 50_000)
        #expect(try contents(dir) == body)
        origin.stop()
    }

    /// A body larger than the write buffer, cut short at an odd byte: every byte received is in the
    /// file when the transfer gives up, and the resume makes the exact body.
    @Test func aBodyLargerThanTheWriteBufferKeepsEveryByteReceived() throws {
        let big = (0..<(3 << 20) + 12_345).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 11) }
        origin.serve(path: "/big.bin", bytes: big)
        origin.inject(.cutShort(afterBytes: 1_300_001), at: "/big.bin", times: 1)
        let dir = TemporaryDirectory()
        let fd = try partial(dir)
        defer { try? fd.close() }
        let handle = try EasyHandle()
        #expect(throws: TransferError.self) {
            try handle.download(DownloadRequest(url: origin.url(for: "/big.bin")), into: fd) { _ in true }
        }
        #expect(try contents(dir) == Array(big[0..<1_300_001]))
        let result = try handle.download(DownloadRequest(url: origin.url(for: "/big.bin")), into: fd) { _ in true }
        #expect(result.resumedFrom == 1_300_001 && result.bytes == big.count)
        #expect(try contents(dir) == big)
        origin.stop()
    }

    /// A transfer's callbacks' context past the status line and the validator, fed only the body's bytes
    /// by hand; the handle owns the buffer the context gathers into, so it must outlive the context.
    private func bodyContext(_ fd: FileDescriptor) throws -> (EasyHandle, TransferContext) {
        let handle = try EasyHandle()
        let context = TransferContext(curl: handle.curl, pool: nil, fd: fd, buffer: handle.bodyBuffer, resumeFrom: 0,
                                      maxSize: 1 << 30, hashLimit: .max) { _ in true }
        context.bodyStarted = true
        return (handle, context)
    }

    /// curl hands the body over 16 KiB at a time: the pieces reach the file in one write when they
    /// are flushed (after each of curl's reads), or when the next would overflow the buffer.
    @Test func gathersCurlsPiecesIntoFewWrites() throws {
        let dir = TemporaryDirectory()
        let fd = try partial(dir)
        defer { try? fd.close() }
        let (handle, context) = try bodyContext(fd)
        defer { withExtendedLifetime(handle) {} }
        let pieces = (0..<40).map { i in [UInt8](repeating: UInt8(i), count: 16_384) }
        for piece in pieces.prefix(3) { #expect(context.write(piece, piece.count) == piece.count) }
        #expect(try contents(dir).isEmpty && context.writes == 0)
        #expect(context.flush())
        #expect(try contents(dir) == Array(pieces.prefix(3).joined()) && context.writes == 1)
        for piece in pieces.dropFirst(3) { #expect(context.write(piece, piece.count) == piece.count) }
        #expect(context.flush())
        #expect(try contents(dir) == Array(pieces.joined()))
        // 37 more pieces of 16 KiB: one write when the 33rd would overflow the 512 KiB, one at the flush.
        #expect(context.writes == 3)
        origin.stop()
    }

    /// The first bytes the worker tells a file's kind by are those of the file, however few each read
    /// brought (a slow origin's body comes a few bytes at a time).
    @Test func keepsTheFilesFirstBytesWhateverThePieces() throws {
        let dir = TemporaryDirectory()
        let fd = try partial(dir)
        defer { try? fd.close() }
        let (handle, context) = try bodyContext(fd)
        defer { withExtendedLifetime(handle) {} }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 30)
        for range in [0..<3, 3..<5, 5..<12, 12..<38] {
            let piece = Array(png[range])
            #expect(context.write(piece, piece.count) == piece.count)
            #expect(context.flush())
        }
        #expect(context.head == Array(png.prefix(16)) && context.writes == 4)
        #expect(try contents(dir) == png)
        origin.stop()
    }

    /// The validator goes on the partial file before its first byte, so a later resume can send it
    /// as If-Range; a body whose first write to the file ends it is whole at once and needs none.
    @Test func onlyABodyLeftUnfinishedByItsFirstWriteGetsAValidator() throws {
        let small = Array(body[0..<2_000])
        origin.serve(path: "/small.bin", bytes: small)
        origin.inject(.cutShort(afterBytes: 50_000), at: "/data.bin", times: 1)
        let handle = try EasyHandle()

        let whole = TemporaryDirectory()
        let wholeFD = try partial(whole)
        defer { try? wholeFD.close() }
        _ = try handle.download(DownloadRequest(url: origin.url(for: "/small.bin")), into: wholeFD) { _ in true }
        #expect(try contents(whole) == small)
        #expect(PartialValidator.read(wholeFD) == nil)

        let cut = TemporaryDirectory()
        let cutFD = try partial(cut)
        defer { try? cutFD.close() }
        #expect(throws: TransferError.self) {
            try handle.download(DownloadRequest(url: origin.url(for: "/data.bin")), into: cutFD) { _ in true }
        }
        #expect(try contents(cut).count == 50_000)
        let kept = try #require(PartialValidator.read(cutFD))
        #expect(kept.hasPrefix("\""), "a strong ETag: \(kept)")
        origin.stop()
    }

    @Test func stopsAtTheSizeLimit() throws {
        let dir = TemporaryDirectory()
        let fd = try partial(dir)
        defer { try? fd.close() }
        let error = try #require(throws: TransferError.self) {
            try EasyHandle().download(DownloadRequest(url: origin.url(for: "/data.bin"), maxSize: 10_000), into: fd) { _ in true }
        }
        #expect(error.kind == .permanent && error.message.contains("limit"))
        #expect(try contents(dir).count <= 10_000)
        origin.stop()
    }

    @Test func abortKeepsTheBytesAndStalledServersTimeOut() throws {
        origin.inject(.throttle(bytesPerSecond: 100_000), at: "/data.bin")
        origin.serve(path: "/stall.bin", bytes: body)
        origin.inject(.stall(afterBytes: 1000), at: "/stall.bin")
        let dir = TemporaryDirectory()
        let fd = try partial(dir)
        defer { try? fd.close() }
        let handle = try EasyHandle()
        let aborted = try #require(throws: TransferError.self) {
            try handle.download(DownloadRequest(url: origin.url(for: "/data.bin")), into: fd) { $0.bytes < 20_000 }
        }
        #expect(aborted.kind == .aborted)
        let kept = try contents(dir)
        #expect(kept.count >= 20_000 && kept == Array(body[0..<kept.count]))

        let other = TemporaryDirectory()
        let stallFd = try partial(other)
        defer { try? stallFd.close() }
        let stalled = try #require(throws: TransferError.self) {
            try handle.download(DownloadRequest(url: origin.url(for: "/stall.bin"), stallTimeout: 1), into: stallFd) { _ in true }
        }
        #expect(stalled.kind == .transient && stalled.message.contains("timed out"))
        origin.stop()
    }

    @Test func reusesOneConnectionForManyRequests() throws {
        origin.serve(path: "/small", bytes: Array(repeating: 7, count: 16_384))
        let handle = try EasyHandle()
        let dir = TemporaryDirectory()
        for _ in 0..<20 {
            let fd = try partial(dir)
            _ = try handle.download(DownloadRequest(url: origin.url(for: "/small")), into: fd) { _ in true }
            try? fd.close()
        }
        let ports = Set(origin.requests(for: "/small").compactMap(\.clientPort))
        #expect(origin.requests(for: "/small").count == 20)
        #expect(ports.count == 1, "connections: \(ports)")
        origin.stop()
    }
}
