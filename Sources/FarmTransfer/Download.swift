import CFarmCurlLoader
import Crypto
import FarmSystem
import FoundationEssentials
import SystemPackage

/// One download: what to fetch and the limits it runs under.
public struct DownloadRequest: Sendable {
    public var url: String
    /// Stop (permanently) past this many bytes in all.
    public var maxSize: Int
    public var connectTimeout: Double
    /// Slower than 1 byte/s for this long counts as a time-out: a stalled server is a transient error.
    public var stallTimeout: Double
    /// The certificates (PEM) that HTTPS servers are verified against instead of the system's: a
    /// company's CA, a TLS-inspecting proxy's. nil: the system's.
    public var caFile: String?
    /// A conditional request (`farm sync`): `If-None-Match` with this ETag, else `If-Modified-Since` with
    /// `ifModifiedSince`; a 304 then ends the download well, with no byte (`DownloadResult.notModified`).
    public var ifNoneMatch: String?
    public var ifModifiedSince: String?
    /// The list's headers, cookies, user agent and proxy (SPEC §12); nil: none.
    public var options: RequestOptions?
    /// Whether curl follows redirects itself (up to `maxRedirects`). False: a redirect ends the download
    /// with its target in `DownloadResult.redirect`, for a caller that lets each request's host in first
    /// (the worker: SPEC §10 counts a redirected transfer against the host it went to).
    public var followsRedirects = true
    /// Set on a request a redirect asked for, when the caller follows them itself (`followsRedirects`
    /// false): as curl's own following does, the cookie store is kept as the chain left it (what the
    /// servers set on the way goes on with it), and the list's Authorization and Cookie headers go only to
    /// the host the chain began at.
    public var redirected: Redirected?
    /// Bodies of at most this many bytes are hashed with SHA-256 as they are written (`DownloadResult.sha256`),
    /// longer ones not: 0 hashes none, `Int.max` all (a caller that checks a checksum). A hash is paid only
    /// where one can matter (SPEC §13).
    public var hashLimit = 0
    /// Bodies of at most this many bytes get a `QuickDigest` as they are written (`DownloadResult.quickDigest`):
    /// what names a small stored file apart from others of its size at the cost of a read of it.
    public var quickDigestLimit = 0
    /// Only these bytes of the resource, written at their own offsets (SPEC §14's pieces): the answer
    /// must be a 206 for them, and the transfer ends well where the piece ends. Nil: the whole resource.
    public var piece: PieceRange?
    /// Why a body whose first bytes are these is not wanted (a kind its list does not keep), or nil when it
    /// is: asked once, when the body's first `TransferContext.headLength` bytes arrive from byte 0, so that a
    /// refused body costs its first read and not its whole transfer. A refusal ends the download with a
    /// permanent error of that message. Not asked of a resumed body (its first bytes came earlier) nor of
    /// one shorter than the head, which the caller sniffs whole.
    public var refusal: (@Sendable (_ head: [UInt8]) -> String?)?
    /// Keep what a WARC records of the exchange (`DownloadResult.exchange`): the request's head as sent,
    /// the response's as received, the server's address (SPEC §18, a list with `--warc`). Such a download
    /// starts from the first byte whatever the partial holds, so that its response is one whole response
    /// and not a 206 of a tail. False (every other list): nothing of it is paid, not a branch per byte.
    public var recordsExchange = false

    public enum Redirected: Sendable, Equatable {
        /// To the scheme, host and port the chain began at.
        case toSameHost
        /// Elsewhere: no Authorization or Cookie header of the list goes with it.
        case toAnotherHost
    }

    /// The most redirects one download follows: curl's own limit, kept by a caller that follows them.
    public static let maxRedirects = 10

    /// The CA file the environment names (`CURL_CA_BUNDLE`, else `SSL_CERT_FILE`), as curl's own command
    /// line and OpenSSL read it: libcurl itself reads neither. Read by getenv: `ProcessInfo`'s first use
    /// builds its whole environment dictionary, about a millisecond of a worker's start-up (perf).
    public static var caFileFromEnvironment: String? {
        ["CURL_CA_BUNDLE", "SSL_CERT_FILE"].lazy.compactMap(Processes.environment).first { !$0.isEmpty }
    }

    public init(url: String, maxSize: Int = 1 << 30, connectTimeout: Double = 15, stallTimeout: Double = 30,
                caFile: String? = nil, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil,
                options: RequestOptions? = nil) {
        self.url = url
        self.maxSize = maxSize
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.caFile = caFile
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.options = options
    }
}

/// Where a transfer stands, for progress sidecars and pause or lease checks.
public struct TransferProgress: Sendable, Equatable {
    /// Bytes in the file so far, resumed ones included.
    public var bytes: Int
    /// The whole size, once the server said it.
    public var size: Int?
    /// Why the bytes kept from an earlier transfer were dropped, once the server's answer dropped them (it
    /// sent the whole file for a range): told while the transfer runs, so a view can say so at once.
    public var startedOver: String?
    /// The bytes kept from before that this transfer resumes after (0: it started from the first byte).
    public var resumedFrom = 0

    public init(bytes: Int, size: Int?, startedOver: String? = nil) {
        self.bytes = bytes
        self.size = size
        self.startedOver = startedOver
    }
}

/// How a download ended well.
public struct DownloadResult: Sendable, Equatable {
    public var httpStatus: Int
    /// Bytes in the file: the whole resource.
    public var bytes: Int
    /// The byte the transfer resumed from (0 when it started from scratch).
    public var resumedFrom: Int
    public var contentType: String?
    /// The validators of the final response: its ETag (weak ones too: they are fine for If-None-Match) and
    /// Last-Modified, as sent; what `farm sync` revalidates the resource with.
    public var etag: String?
    public var modified: String?
    /// With `followsRedirects` off, where a redirect answer (a 3xx with a Location) points, resolved against
    /// the URL asked, and always http(s): nothing was written, and the caller asks that URL next. Nil for a
    /// download.
    public var redirect: String?
    /// The SHA-256 of the file's bytes (64 lowercase hex digits), hashed as they were written: only when
    /// this transfer wrote the whole file from its first byte, in order; nil otherwise (a resumed
    /// transfer), and whoever needs it reads the file back.
    public var sha256: String?
    /// The file's `QuickDigest`, under the same conditions as `sha256`.
    public var quickDigest: String?
    /// The file's first bytes (up to 16) as far as this transfer wrote them from byte 0 (see `fileHead`).
    public var head: [UInt8] = []

    /// The file's first bytes, all of them up to 16, when this transfer wrote them; nil when they must be
    /// read from the file (a resumed transfer, or none written).
    public var fileHead: [UInt8]? {
        head.count == min(TransferContext.headLength, bytes) && !head.isEmpty ? head : nil
    }

    /// The whole resource's size, when a 206 or a 416 said it (`Content-Range`).
    public var completeSize: Int?
    /// Why the bytes kept from an earlier transfer were dropped and the resource fetched from its first
    /// byte, when they were: the server answered the range with another version (see `TransferContext.startBody`).
    public var startedOver: String?
    /// What a WARC records of this exchange, when the request asked for it (`recordsExchange`).
    public var exchange: CapturedExchange?

    public init(httpStatus: Int, bytes: Int, resumedFrom: Int, contentType: String?, etag: String? = nil,
                modified: String? = nil, sha256: String? = nil, completeSize: Int? = nil) {
        self.completeSize = completeSize
        self.httpStatus = httpStatus
        self.bytes = bytes
        self.resumedFrom = resumedFrom
        self.contentType = contentType
        self.etag = etag
        self.modified = modified
        self.sha256 = sha256
    }

    /// A conditional request answered 304: what the client has is current.
    public var notModified: Bool { httpStatus == 304 }
}

extension EasyHandle {
    /// Bytes curl reads from the socket at once (its default is 16 KiB).
    static let receiveBuffer = 512 << 10

    /// Downloads `request.url` into `fd`, a file opened for writing. Bytes already in it are kept
    /// and only the rest is asked for (`Range: bytes=K-`); a server that answers the whole body
    /// instead makes the file start over. `progress` is called about once per tick; returning false
    /// aborts the transfer with `.aborted`, keeping the bytes so far. `size`: the file's size, when the
    /// caller knows it (it holds the file and has just looked): one fstat fewer a job.
    public func download(_ request: DownloadRequest, into fd: FileDescriptor, size: Int? = nil,
                         progress: @escaping (TransferProgress) -> Bool) throws(TransferError) -> DownloadResult {
        let resumeFrom: Int
        if let piece = request.piece {
            resumeFrom = piece.start
        } else if request.recordsExchange {
            // A WARC records whole responses: the kept bytes go, and the body is fetched from its first byte.
            if size ?? 1 > 0 {
                guard (try? fd.truncate(to: 0)) != nil else { throw TransferError(.transient, "cannot empty the partial file") }
            }
            resumeFrom = 0
        } else if let size {
            resumeFrom = size
        } else {
            guard let st = try? fd.status() else { throw TransferError(.transient, "cannot read the partial file") }
            resumeFrom = Int(st.size)
        }
        if resumeFrom >= request.maxSize {
            throw TransferError(.permanent, "larger than the \(request.maxSize)-byte limit")
        }
        // The validator the kept bytes came with: sent as If-Range, and what a 206 must carry to be joined to them.
        let kept = request.piece.map(\.validator) ?? (resumeFrom > 0 ? PartialValidator.read(fd) : nil)
        let context = TransferContext(curl: curl, pool: pool, fd: fd, buffer: bodyBuffer, resumeFrom: resumeFrom,
                                      maxSize: request.maxSize, hashLimit: request.piece == nil ? request.hashLimit : 0,
                                      quickDigestLimit: request.piece == nil ? request.quickDigestLimit : 0,
                                      piece: request.piece, validator: kept, progress: progress)
        if request.piece == nil { context.refusal = request.refusal }
        if request.recordsExchange { context.exchange = CapturedExchange(url: request.url) }
        let opaque = Unmanaged.passUnretained(context).toOpaque()
        // `context` stays alive until perform returns; reset first so nothing of the last request stays.
        curl_easy_reset(curl)
        errorBuffer[0] = 0
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_FOLLOWLOCATION, request.followsRedirects ? 1 : 0)
        try set(CURLOPT_MAXREDIRS, DownloadRequest.maxRedirects)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_USERAGENT, request.options?.userAgent ?? "farm/0.1")
        if request.redirected == nil { try applyCookies(request.options?.cookies ?? []) }
        if let proxy = request.options?.proxy {
            // The list's own proxy, for every one of its requests: the environment's no_proxy is not asked.
            try set(CURLOPT_PROXY, proxy)
            try set(CURLOPT_NOPROXY, "")
        }
        if pool != nil {
            // HTTP/2 where the server offers it (ALPN), its requests multiplexed on the pool's connection to
            // the host: over TLS a new transfer waits for that connection's ALPN rather than opening its own.
            // Not over plain HTTP, which is HTTP/1.1 here: there a transfer that waited would queue behind
            // a busy connection's whole body.
            try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
            if WebScheme(of: request.url) == .https { try set(CURLOPT_PIPEWAIT, 1) }
        } else {
            // One transfer at a time on the handle's connection: HTTP/2's streams would multiplex nothing
            // and cost each request its stream set-up and header compression.
            try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        }
        try set(CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout * 1000))
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, max(1, Int(request.stallTimeout)))
        // The whole limit: a server that ignores the range sends everything again. The write callback
        // enforces the exact limit either way.
        try set(CURLOPT_MAXFILESIZE_LARGE, offset: request.maxSize)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        if let caFile = request.caFile { try set(CURLOPT_CAINFO, caFile) }
        // Fewer, larger reads, so fewer wake-ups and writes per body. Only a hint: curl refuses it
        // while the handle still holds the buffer of a transfer that failed, and then reads in its
        // default size into that buffer.
        _ = cfarm_curl_setopt_long(curl, CURLOPT_BUFFERSIZE, Self.receiveBuffer)
        // CURLOPT_RANGE rather than RESUME_FROM: with it curl hands us a 200 (a server without ranges)
        // instead of failing, and the write callback starts the file over.
        // If-Range: the rest only if the resource is still the one those bytes came from, else all of it
        // (a 200, which makes the file start over) instead of a splice of two versions.
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        if let piece = request.piece {
            guard piece.end > piece.start else { throw TransferError(.permanent, "an empty piece") }
            try set(CURLOPT_RANGE, "\(piece.start)-\(piece.end - 1)")
            // A connection of its own, kept by nobody after: a server that caps each connection counts
            // what the connection sent before against the next request on it (nginx's limit_rate does),
            // which would hold a piece on a reused connection back for seconds. A piece is at least a
            // smallest piece long, which dwarfs a handshake.
            try set(CURLOPT_FRESH_CONNECT, 1)
            try set(CURLOPT_FORBID_REUSE, 1)
            if let kept { headers = curl_slist_append(headers, "If-Range: " + kept) }
        } else if resumeFrom > 0 {
            try set(CURLOPT_RANGE, "\(resumeFrom)-")
            if let kept { headers = curl_slist_append(headers, "If-Range: " + kept) }
        } else if let etag = request.ifNoneMatch {
            headers = curl_slist_append(headers, "If-None-Match: " + etag)
        } else if let modified = request.ifModifiedSince {
            headers = curl_slist_append(headers, "If-Modified-Since: " + modified)
        }
        // After farm's own, so that one the user names again wins. libcurl sends none of them to another
        // host after a redirect if it is Authorization or Cookie (CVE-2018-1000007, CVE-2022-27776).
        // A redirect the caller follows itself leaves them out where curl's following would (see `redirected`).
        for header in request.options?.headers ?? []
        where request.redirected != .toAnotherHost || !Self.isCredential(header) {
            headers = curl_slist_append(headers, header)
        }
        if headers != nil { try set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(headers)) }
        try check(cfarm_curl_setopt_write(curl, writeCallback))
        try set(CURLOPT_WRITEDATA, pointer: opaque)
        try check(cfarm_curl_setopt_header(curl, headerCallback))
        try set(CURLOPT_HEADERDATA, pointer: opaque)
        try check(cfarm_curl_setopt_xferinfo(curl, progressCallback))
        try set(CURLOPT_XFERINFODATA, pointer: opaque)
        try set(CURLOPT_NOPROGRESS, 0)
        if request.recordsExchange {
            // The request's head as sent reaches only a debug callback, which curl calls only when verbose
            // (and then writes nothing to stderr itself).
            try check(cfarm_curl_setopt_debug(curl, debugCallback))
            try set(CURLOPT_DEBUGDATA, pointer: opaque)
            try set(CURLOPT_VERBOSE, 1)
        }

        lastWritten = 0
        let code = pool?.perform(curl) ?? curl_easy_perform(curl)
        context.flush()  // whatever the outcome: every byte received is kept for a resume
        lastWritten = context.restarted ? context.offset : max(0, context.offset - resumeFrom)
        let status = info(CURLINFO_RESPONSE_CODE)
        let response = context.response
        if let other = context.otherVersion {
            // The kept bytes are of a version the server no longer has: dropped, validator and all, and the
            // resource fetched from its first byte, now with nothing to join.
            guard (try? fd.truncate(to: 0)) != nil else { throw TransferError(.transient, "cannot empty the partial file") }
            PartialValidator.write(nil, fd)
            var again = try download(request, into: fd, size: 0, progress: progress)
            again.startedOver = again.startedOver ?? other
            return again
        }
        // Our own reasons to stop come first: curl only sees a callback that said no.
        if let failure = context.failure { throw failure }
        if let piece = request.piece, context.offset >= piece.end, status == 206 {
            // Ended by its end (reached, or moved closer by another transfer): curl saw a write refused.
            return DownloadResult(httpStatus: 206, bytes: context.offset, resumedFrom: resumeFrom,
                                  contentType: response.contentType, etag: response.etag,
                                  modified: response.lastModified, completeSize: response.completeSize)
        }
        if context.aborted { throw TransferError(.aborted, "stopped by the worker") }
        // A redirect curl refused to follow leaves its 3xx as the status: the refusal is the news.
        if [CURLE_UNSUPPORTED_PROTOCOL, CURLE_TOO_MANY_REDIRECTS, CURLE_URL_MALFORMAT].contains(code) {
            throw TransferError.curl(code, detail: lastErrorMessage)
        }
        // What a WARC records of an answer that ended whole (a redirect, an error, the resource); nil when the
        // request asked for none.
        var exchange = context.exchange
        exchange?.ipAddress = infoString(CURLINFO_PRIMARY_IP)
        let answered = code == CURLE_OK ? exchange : nil
        if !request.followsRedirects, code == CURLE_OK, (300..<400).contains(status), status != 304,
           let target = redirectTarget() {
            guard WebScheme(of: target) != nil else {
                var error = TransferError(.permanent, "not an http(s) URL: a redirect to \(Self.scheme(of: target))")
                error.exchange = answered
                throw error
            }
            var result = DownloadResult(httpStatus: status, bytes: resumeFrom, resumedFrom: resumeFrom,
                                        contentType: response.contentType)
            result.redirect = target
            result.exchange = answered
            return result
        }
        if status == 304, code == CURLE_OK, resumeFrom == 0,
           request.ifNoneMatch != nil || request.ifModifiedSince != nil {
            return DownloadResult(httpStatus: 304, bytes: 0, resumedFrom: 0, contentType: response.contentType,
                                  etag: response.etag, modified: response.lastModified)
        }
        if status >= 300 || (status > 0 && status < 200) {
            if status == 416, resumeFrom > 0, response.completeSize == resumeFrom {
                // The earlier attempt had every byte already: nothing left to fetch.
                return DownloadResult(httpStatus: 206, bytes: resumeFrom, resumedFrom: resumeFrom,
                                      contentType: response.contentType, etag: response.etag,
                                      modified: response.lastModified)
            }
            if status == 416 { try? fd.truncate(to: 0) }  // the partial bytes no longer match: start over
            var error = TransferError.http(status, retryAfter: response.retryAfter)
            error.exchange = answered
            throw error
        }
        // A Content-Length over the limit stops curl before any byte: say which limit, as for a body.
        if code == CURLE_FILESIZE_EXCEEDED {
            throw TransferError(.permanent, "larger than the \(request.maxSize)-byte limit")
        }
        guard code == CURLE_OK else { throw TransferError.curl(code, detail: lastErrorMessage) }
        var result = DownloadResult(httpStatus: status, bytes: context.offset,
                                    resumedFrom: context.restarted ? 0 : resumeFrom,
                                    contentType: response.contentType, etag: response.etag,
                                    modified: response.lastModified, sha256: context.digest,
                                    completeSize: response.completeSize)
        result.quickDigest = context.quickDigest
        result.head = context.head
        result.startedOver = context.startedOver
        result.exchange = exchange
        return result
    }

    /// Loads `cookies` (Netscape lines) into the handle's cookie store, which libcurl sends by domain,
    /// path and expiry, so a redirect to another host carries none of them. The store outlives
    /// `curl_easy_reset`: a handle that ever held cookies empties it first, so that no cookie of one
    /// list (or set by a server for it) goes with another's requests.
    private func applyCookies(_ cookies: [String]) throws(TransferError) {
        if cookieStoreUsed { try set(CURLOPT_COOKIELIST, "ALL") }
        for cookie in cookies { try set(CURLOPT_COOKIELIST, cookie) }
        if !cookies.isEmpty { cookieStoreUsed = true }
    }


    /// `url`'s scheme in lower case (all of it when it has no colon).
    static func scheme(of url: String) -> String {
        String(url.prefix { $0 != ":" }).lowercased()
    }

    /// Whether a header line of the list (`Name: value`, see `RequestOptions.header`) is one curl keeps from
    /// other hosts after a redirect: Authorization or Cookie, in any case.
    static func isCredential(_ header: String) -> Bool {
        let name = header.prefix { $0 != ":" }.lowercased()
        return name == "authorization" || name == "cookie"
    }

    /// The absolute URL the last response's redirect points to (curl resolves a relative Location against
    /// the URL asked); nil when it has none.
    private func redirectTarget() -> String? { infoString(CURLINFO_REDIRECT_URL) }

    /// A string curl knows of the last transfer; nil when it has none.
    private func infoString(_ info: CURLINFO) -> String? {
        var value: UnsafePointer<CChar>?
        guard cfarm_curl_getinfo_str(curl, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    private func check(_ code: CURLcode) throws(TransferError) {
        guard code == CURLE_OK else { throw TransferError.curl(code, detail: "") }
    }
}

/// What the C callbacks of one transfer share, passed to them as an unretained pointer.
final class TransferContext {
    let curl: UnsafeMutableRawPointer
    /// The pool it runs on, whose bandwidth cap its body bytes pass through (nil: a transfer by itself).
    let pool: TransferPool?
    let fd: FileDescriptor
    /// Received bytes not yet in the file: the first `pending` bytes of `buffer`.
    let buffer: UnsafeMutableRawBufferPointer
    var pending = 0
    /// The body's writes to the file so far (for tests).
    var writes = 0
    let resumeFrom: Int
    let maxSize: Int
    /// Set for a piece: the bytes end at its end, and only a 206 is its bytes.
    let piece: PieceRange?
    /// The validator of the bytes a 206 would be joined to (sent as If-Range); nil when they have none.
    let validator: String?
    /// Set when the server answered the range with a 206 of another version than the kept bytes' (it ignored
    /// If-Range): why, for the note. Nothing of that body is written.
    var otherVersion: String?
    /// Why this transfer dropped the bytes it was to resume (`TransferProgress.startedOver`).
    var startedOver: String?
    let progress: (TransferProgress) -> Bool
    /// Bytes received so far, resumed ones included: those in the file and the `pending` ones.
    var offset: Int
    var bodyStarted = false
    var discardBody = false
    /// The server ignored the range and sent the whole body: the file started over.
    var restarted = false
    var aborted = false
    var failure: TransferError?
    /// What the response's headers said (the last response's, after redirects).
    var response = ResponseHeaders()
    /// The SHA-256 and the quick digest of the bytes in the file, fed as each write lands, while the file
    /// holds exactly the bytes this transfer wrote from byte 0 in order (`hashed` of them): publishing a
    /// download then need not read it back. Nil once a write lands anywhere else (a resumed transfer), or
    /// past their limits.
    private var hasher: SHA256?
    private var quick: QuickDigest?
    private let hashLimit: Int
    private let quickDigestLimit: Int
    private var hashed = 0
    /// The body's length as the response announced it (-1: not announced), and whether its validator is
    /// still to be written (see `writeValidatorIfDue`).
    private var bodyLength = -1
    private var validatorDue = false
    /// The file's first bytes as this transfer wrote them from byte 0, up to `headLength`, however the
    /// body came in pieces: what its kind is told by, without a read.
    var head: [UInt8] = []
    static let headLength = 16
    /// `DownloadRequest.refusal`, until it is asked; and the body's first bytes gathered for it as they
    /// arrive (before they are buffered, so that nothing of a refused body reaches the file but its first read).
    var refusal: (@Sendable ([UInt8]) -> String?)?
    private var arrived: [UInt8] = []
    /// The heads a WARC records, for a request that asked (`DownloadRequest.recordsExchange`); nil otherwise.
    var exchange: CapturedExchange?

    init(curl: UnsafeMutableRawPointer, pool: TransferPool?, fd: FileDescriptor, buffer: UnsafeMutableRawBufferPointer,
         resumeFrom: Int, maxSize: Int, hashLimit: Int, quickDigestLimit: Int = 0, piece: PieceRange? = nil, validator: String? = nil,
         progress: @escaping (TransferProgress) -> Bool) {
        self.curl = curl
        self.pool = pool
        self.fd = fd
        self.buffer = buffer
        self.resumeFrom = resumeFrom
        self.maxSize = maxSize
        self.piece = piece
        self.validator = validator
        self.progress = progress
        self.offset = resumeFrom
        self.hashLimit = hashLimit
        self.quickDigestLimit = quickDigestLimit
        if resumeFrom == 0 { startHashing() }
    }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> TransferContext {
        Unmanaged<TransferContext>.fromOpaque(pointer!).takeUnretainedValue()
    }

    /// Decides, at the first body byte, whether the body is the resource and where it goes;
    /// `count` bytes of it came first.
    func startBody(first count: Int) {
        bodyStarted = true
        var status = 0
        _ = cfarm_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
        if status < 200 || status >= 300 {
            discardBody = true  // an error page is not the resource
            return
        }
        // A server that ignores If-Range answers with a 206 of whatever it holds now (aria2 #2280): the body
        // is joined to the kept bytes only when it comes with their validator (SPEC §2), so that no output is
        // ever made of two versions. A piece fails for good, which makes its resource start over whole.
        if status == 206, let validator, response.rangeValidator != validator {
            let why = "the server's copy changed (\(response.rangeValidator ?? "no validator") where the kept bytes "
                + "had \(validator)) and it ignored If-Range: fetched again from the first byte"
            if piece != nil { failure = TransferError(.permanent, why) } else { otherVersion = why }
            return
        }
        if let piece {
            // A piece's bytes go where they belong, or nowhere: a 200 is the whole resource (ranges
            // refused, or the validator no longer the resource's), which other pieces are not part of;
            // a 206 of another size is other bytes.
            if status != 206 {
                failure = TransferError(.transient, "the server answered a range with HTTP \(status)")
            } else if let size = piece.size, let total = response.completeSize, total != size {
                failure = TransferError(.permanent, "it reports a size of \(total) bytes, not \(size)")
            }
            return
        }
        if status == 200 && resumeFrom > 0 {
            // Hashed from here on only when the file is surely empty again.
            if (try? fd.truncate(to: 0)) != nil { startHashing() }
            offset = 0
            restarted = true
            head = []
            startedOver = "the server sent the whole file for a request of its rest from byte \(resumeFrom) "
                + "(it does not resume): fetched again from the first byte"
        }
        var length: curl_off_t = -1
        _ = cfarm_curl_getinfo_off(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        bodyLength = Int(length)
        validatorDue = true
    }

    /// Writes the validator before the body's first bytes land (`store`), so that it always describes
    /// the bytes in the file. Not needed when that first write ends the body (a short job: it saves a
    /// system call): the file is then whole, and a later request for the rest (its worker killed before
    /// storing it) gets a 416 that keeps it, a whole version and never a splice. Resumed bytes keep
    /// their own.
    private func writeValidatorIfDue(endingAt end: Int) {
        guard validatorDue else { return }
        validatorDue = false
        let bodyEnd = end - (restarted ? 0 : resumeFrom)
        if restarted || bodyLength < 0 || bodyEnd < bodyLength { PartialValidator.write(response.rangeValidator, fd) }
    }

    func write(_ data: UnsafeRawPointer, _ count: Int) -> Int {
        if !bodyStarted { startBody(first: count) }
        if discardBody {
            exchange?.unstoredBody(UnsafeRawBufferPointer(start: data, count: count))
            return count
        }
        if otherVersion != nil { return 0 }  // not a byte of it: the transfer ends, and starts over
        if failure != nil { return 0 }
        if let piece {
            // Up to the piece's end as it stands now; the rest is refused, which ends the transfer.
            let room = piece.end - offset
            if room < count {
                guard room > 0, write(data, room) == room else { return 0 }
                return 0
            }
        }
        // Over the bandwidth cap: curl keeps these bytes, and hands them over again once resumed.
        if let pool, !pool.admit(count, of: curl) { return Int(CURL_WRITEFUNC_PAUSE) }
        if refusal != nil, !ask(data, count) { return 0 }
        if offset + count > maxSize {
            failure = TransferError(.permanent, "larger than the \(maxSize)-byte limit")
            return 0
        }
        // curl hands the body over at most 16 KiB at a time (CURL_MAX_WRITE_SIZE), whatever it read.
        // The pieces gather here until the progress callback, which curl calls after each read, so
        // each read becomes one write: a 64 MiB body costs about 130 writes, not 4,096. The bytes
        // still reach the file at the end of each read, so a kill loses at most the read in flight.
        if pending + count > buffer.count {
            guard flush() else { return 0 }
        }
        if count >= buffer.count {
            guard store(data, count, at: offset) else { return 0 }
        } else {
            buffer.baseAddress!.advanced(by: pending).copyMemory(from: data, byteCount: count)
            pending += count
        }
        offset += count
        return count
    }

    /// Gathers the body's first bytes for `refusal` and asks it once they are all there; false (and `failure`
    /// set) when it refuses the body. A body that does not start at byte 0 here (resumed) is not asked.
    private func ask(_ data: UnsafeRawPointer, _ count: Int) -> Bool {
        guard offset == arrived.count else {
            refusal = nil
            return true
        }
        arrived += UnsafeRawBufferPointer(start: data, count: min(count, Self.headLength - arrived.count))
        guard arrived.count == Self.headLength, let refusal else { return true }
        self.refusal = nil
        if let why = refusal(arrived) {
            failure = TransferError(.permanent, why)
            return false
        }
        return true
    }

    /// Writes the pending bytes to the file; false (and `failure` set) when it cannot.
    @discardableResult
    func flush() -> Bool {
        guard pending > 0 else { return true }
        defer { pending = 0 }
        return store(buffer.baseAddress!, pending, at: offset - pending)
    }

    private func store(_ data: UnsafeRawPointer, _ count: Int, at position: Int) -> Bool {
        let bytes = UnsafeRawBufferPointer(start: data, count: count)
        writeValidatorIfDue(endingAt: position + count)
        if position <= head.count && head.count < Self.headLength && position + count > head.count {
            let from = head.count - position
            head += bytes[from..<min(count, from + Self.headLength - head.count)]
        }
        do {
            writes += try fd.write(contentsOf: bytes, at: position)
        } catch {
            failure = failure ?? TransferError(error.isNoSpace ? .noSpace : .transient,
                                               "cannot write the download: \(error)")
            return false
        }
        if position == hashed {
            if hasher != nil {
                if position + count <= hashLimit { hasher!.update(bufferPointer: bytes) } else { hasher = nil }
            }
            if quick != nil {
                if position + count <= quickDigestLimit { quick!.update(bytes) } else { quick = nil }
            }
            hashed += count
        } else {
            hasher = nil
            quick = nil
        }
        return true
    }

    /// Hashes what is written from byte 0 on, as the limits ask.
    private func startHashing() {
        hashed = 0
        hasher = hashLimit > 0 ? SHA256() : nil
        quick = quickDigestLimit > 0 ? QuickDigest() : nil
    }

    /// The digest of the whole file as written (see `hasher`), once every byte received is in it.
    var digest: String? {
        guard pending == 0, hashed == offset, let hasher else { return nil }
        return hasher.finalize().withUnsafeBytes(Hex.lowercase)
    }

    /// The quick digest of the whole file as written, under the same conditions as `digest`.
    var quickDigest: String? {
        guard pending == 0, hashed == offset, let quick else { return nil }
        return quick.finalize()
    }

    /// One header line as curl hands it over (with its CRLF).
    func header(_ line: UnsafeRawBufferPointer) {
        response.read(line, now: Double(time(nil)))
        exchange?.responseLine(line)
    }
}

private let writeCallback: cfarm_write_callback = { data, size, count, context in
    guard let data else { return 0 }
    return TransferContext.from(context).write(data, size * count)
}

private let headerCallback: cfarm_header_callback = { data, size, count, context in
    guard let data else { return 0 }
    TransferContext.from(context).header(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}

private let debugCallback: cfarm_debug_callback = { _, type, data, size, context in
    if type == CURLINFO_HEADER_OUT, let data {
        TransferContext.from(context).exchange?.requestHead(UnsafeRawBufferPointer(start: data, count: size))
    }
    return 0
}

private let progressCallback: cfarm_xferinfo_callback = { context, dltotal, dlnow, _, _ in
    let transfer = TransferContext.from(context)
    guard transfer.flush() else { return 1 }  // its `failure` says why
    // During a resumed transfer dltotal counts only the remaining bytes.
    let size: Int? = dltotal > 0 ? Int(dltotal) + (transfer.restarted ? 0 : transfer.resumeFrom) : nil
    var progress = TransferProgress(bytes: transfer.offset, size: size, startedOver: transfer.startedOver)
    progress.resumedFrom = transfer.restarted ? 0 : transfer.resumeFrom
    if transfer.progress(progress) { return 0 }
    transfer.aborted = true
    return 1
}
