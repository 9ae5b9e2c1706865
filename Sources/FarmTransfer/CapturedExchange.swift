import FarmSystem

/// What a WARC records of one download besides its body (SPEC §18): the request's head as libcurl sent it,
/// the response's status line and header fields as received, the server's address and when it was asked.
/// Kept only for a request that asks (`DownloadRequest.recordsExchange`); filled by that transfer's
/// callbacks, read once it has ended.
///
/// The body is the download's file: libcurl hands it over with its chunked framing taken off (no
/// Content-Encoding is decoded: farm asks for none), so the head loses its Transfer-Encoding field, or a
/// reader would look for chunks that are not there (see FarmWARC's WARCExchange).
public struct CapturedExchange: Sendable, Equatable {
    /// The URL asked (after the worker's own redirects, this hop's).
    public let url: String
    /// When the request was made, in seconds since the epoch (the records' WARC-Date).
    public let date: Int
    public private(set) var requestHead: [UInt8] = []
    public private(set) var responseHead: [UInt8] = []
    /// CURLINFO_PRIMARY_IP, once the transfer ended.
    public internal(set) var ipAddress: String?

    init(url: String) {
        self.url = url
        date = Int(Clock.wall())
    }

    /// The head of a request as sent: the last one sent is the one answered.
    mutating func requestHead(_ bytes: UnsafeRawBufferPointer) {
        requestHead = Array(bytes)
    }

    /// One line of a response's head, CRLF included. A status line starts a head afresh: an interim 1xx
    /// answer is not the response recorded.
    mutating func responseLine(_ line: UnsafeRawBufferPointer) {
        if line.starts(with: Self.statusPrefix) { responseHead = [] }
        if Self.isTransferEncoding(line) { return }
        responseHead += line
    }

    private static let statusPrefix = Array("HTTP/".utf8)
    private static let transferEncoding = Array("transfer-encoding:".utf8)

    private static func isTransferEncoding(_ line: UnsafeRawBufferPointer) -> Bool {
        guard line.count >= transferEncoding.count else { return false }
        return zip(line.prefix(transferEncoding.count), transferEncoding).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }
}
