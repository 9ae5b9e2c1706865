import CFarmCurlLoader

/// Why a download did not finish, sorted the way the worker must act on it.
///
/// The kind is decided here, from the curl code and the HTTP status, never by matching strings.
public struct TransferError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// Try again later, resuming by range: 5xx, 408, 429, reset, time-out, body cut short.
        case transient
        /// Never retry: other 4xx, a URL that is not http(s) (also as a redirect target), too many
        /// redirects, a download larger than the limit.
        case permanent
        /// The caller asked to stop (pause, lost lease, shutdown): keep the bytes, do not count it.
        case aborted
        /// The disk is full (ENOSPC, EDQUOT): keep the bytes so far and hand the job back, not counted;
        /// it goes on once space is freed.
        case noSpace
    }

    public let kind: Kind
    public let message: String
    /// The HTTP status, when the server answered one.
    public let httpStatus: Int?
    /// Seconds the server asked us to wait (`Retry-After`), when it did.
    public let retryAfter: Double?
    public let curlCode: Int?
    /// For a request that records its exchange (`DownloadRequest.recordsExchange`), the HTTP answer that is
    /// this error, when one came whole (a 404, a 503, a redirect to a scheme farm does not fetch): what a WARC
    /// records of a resource that ends here (SPEC §18).
    public var exchange: CapturedExchange?

    public init(_ kind: Kind, _ message: String, httpStatus: Int? = nil, retryAfter: Double? = nil,
                curlCode: Int? = nil) {
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
        self.curlCode = curlCode
    }

    public var description: String { message }

    /// The error for an HTTP status that is not a success.
    static func http(_ status: Int, retryAfter: Double?) -> TransferError {
        let transient = status == 408 || status == 429 || status >= 500
        return TransferError(transient ? .transient : .permanent, "HTTP \(status)", httpStatus: status,
                             retryAfter: retryAfter)
    }

    /// The error for a curl failure, with curl's own words kept in the message.
    static func curl(_ code: CURLcode, detail: String) -> TransferError {
        let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let kind: Kind, message: String
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL: (kind, message) = (.permanent, "not an http(s) URL: \(text)")
        case CURLE_URL_MALFORMAT: (kind, message) = (.permanent, "malformed URL: \(text)")
        case CURLE_TOO_MANY_REDIRECTS: (kind, message) = (.permanent, "too many redirects")
        case CURLE_FILESIZE_EXCEEDED: (kind, message) = (.permanent, "larger than the size limit")
        case CURLE_PARTIAL_FILE: (kind, message) = (.transient, "body cut short: \(text)")
        case CURLE_OPERATION_TIMEDOUT: (kind, message) = (.transient, "timed out: \(text)")
        // The same certificate fails the same way next time: say what would make it pass.
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE:
            (kind, message) = (.permanent, "TLS certificate not trusted: \(text) (give its CA with "
                + "`farm start --ca-file`, or SSL_CERT_FILE)")
        default: (kind, message) = (.transient, text)
        }
        return TransferError(kind, message, curlCode: Int(code.rawValue))
    }
}
