import FarmSystem

/// What a WARC records of one exchange besides a stored body (SPEC §18): the request's head as libcurl sent
/// it, the response's status line and header fields as received, the server's address and when it was asked,
/// and for a response whose body is not the resource (a redirect, an error page) that body too.
/// Kept only for a request that asks (`DownloadRequest.recordsExchange`); filled by that transfer's
/// callbacks, read once it has ended.
///
/// A stored body is the download's file: libcurl hands it over with its chunked framing taken off (no
/// Content-Encoding is decoded: farm asks for none), so the head loses its Transfer-Encoding field, or a
/// reader would look for chunks that are not there (see FarmWARC's WARCExchange). An unstored body is kept
/// here the same way, decoded of its chunks.
public struct CapturedExchange: Sendable, Equatable {
    /// The URL asked (after the worker's own redirects, this hop's).
    public let url: String
    /// When the request was made, in seconds since the epoch (the records' WARC-Date).
    public let date: Int
    public private(set) var requestHead: [UInt8] = []
    public private(set) var responseHead: [UInt8] = []
    /// CURLINFO_PRIMARY_IP, once the transfer ended.
    public internal(set) var ipAddress: String?
    /// The body of a response that is not stored (`DownloadResult.redirect`, or `TransferError.exchange`),
    /// as received up to `keptBodyLimit` bytes; empty for a stored one, whose bytes are the download's file.
    public private(set) var body: [UInt8] = []
    /// More of that body came than was kept: its record says it is cut (WARC-Truncated: length).
    public private(set) var bodyCut = false

    /// The most bytes of an unstored body kept in memory: error pages and redirect notes are a few KiB, and
    /// a worker holds one a transfer at most until its job ends.
    public static let keptBodyLimit = 1 << 20

    init(url: String) {
        self.url = url
        date = Int(Clock.wall())
    }

    /// The response's status code, from its status line; 0 when none came.
    public var status: Int {
        let line = responseHead.prefix { $0 != 13 && $0 != 10 }
        let fields = line.split(separator: 32)
        guard fields.count >= 2, fields[0].starts(with: Self.statusPrefix) else { return 0 }
        return Int(String(decoding: fields[1], as: UTF8.self)) ?? 0
    }

    /// The head of a request as sent: the last one sent is the one answered.
    mutating func requestHead(_ bytes: UnsafeRawBufferPointer) {
        requestHead = Array(bytes)
    }

    /// One line of a response's head, CRLF included. A status line starts a head afresh: an interim 1xx
    /// answer is not the response recorded.
    mutating func responseLine(_ line: UnsafeRawBufferPointer) {
        if line.starts(with: Self.statusPrefix) {
            responseHead = []
            body = []
            bodyCut = false
        }
        if Self.isTransferEncoding(line) { return }
        responseHead += line
    }

    /// Bytes of a body the download does not store (a redirect's, an error's), as they arrive.
    mutating func unstoredBody(_ bytes: UnsafeRawBufferPointer) {
        let room = Self.keptBodyLimit - body.count
        if bytes.count > room { bodyCut = true }
        if room > 0 { body += bytes.prefix(room) }
    }

    private static let statusPrefix = Array("HTTP/".utf8)
    private static let transferEncoding = Array("transfer-encoding:".utf8)

    private static func isTransferEncoding(_ line: UnsafeRawBufferPointer) -> Bool {
        guard line.count >= transferEncoding.count else { return false }
        return zip(line.prefix(transferEncoding.count), transferEncoding).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }
}
