import FarmJSON

/// What a list's requests carry besides their URL (SPEC §12): headers, cookies, a user agent, a proxy.
/// Every request made for the list gets them: its manifest or pages, its resources, retries, resumes
/// and `farm sync`'s revalidation. Holds secrets (header and cookie values, a proxy's password): the
/// spool keeps it in a file of mode 0600, and only `summary`'s names and counts are ever shown.
public struct RequestOptions: Equatable, Sendable, JSONRecord {
    /// `Name: value`, in the order given; sent after farm's own headers, so one of the same name wins.
    public var headers: [String]
    /// Cookie lines in the Netscape cookie-file format (see `CookieFile`), each as libcurl takes it.
    public var cookies: [String]
    public var userAgent: String?
    /// `scheme://[user:password@]host[:port]`, scheme one of `proxySchemes`.
    public var proxy: String?
    /// How many connections at once one resource may be fetched over, as pieces (SPEC §14), from 2 to
    /// `maxConnections`; nil: one. Never fewer than `minPiece` bytes a piece (nil: `defaultMinPiece`).
    public var connections: Int?
    public var minPiece: Int?
    /// True: bytes of no kind farm knows are kept as downloaded, of kind `other` (`farm add --accept any`,
    /// SPEC §15), where they would fail with "unsupported content". Not a request's, but the list's: kept
    /// here with its connections, in the file every worker reads for the list.
    public var acceptAny: Bool?
    /// What runs after each resource of the list ends (SPEC §15); nil: nothing. The list's too, kept here
    /// for the same reason, and because an argument may be a secret.
    public var hooks: ListHooks?
    /// What a recursive list follows (SPEC §18); nil: the list is not recursive. The list's too, kept here
    /// where every worker reads it for the list already, so a plain list's job pays nothing to learn it is one.
    public var crawl: CrawlSettings?
    /// True: the list's `file:///` URLs are copied from this machine's disk (`farm add --allow-file-urls`,
    /// `FileFetcher`), where SPEC §5 fails them unfetched. The list's, kept here as `acceptAny` is.
    public var fileURLs: Bool?
    /// Where the list's exchanges are recorded as WARC (SPEC §18, `farm add --warc DIR`); nil: nowhere. The
    /// list's too, kept here for the same reason as `crawl`.
    public var warc: WARCSettings?

    public static let maxConnections = 64
    public static let defaultMinPiece = 1 << 20

    public init(headers: [String] = [], cookies: [String] = [], userAgent: String? = nil, proxy: String? = nil,
                connections: Int? = nil, minPiece: Int? = nil, acceptAny: Bool? = nil, hooks: ListHooks? = nil) {
        self.headers = headers
        self.cookies = cookies
        self.userAgent = userAgent
        self.proxy = proxy
        self.connections = connections
        self.minPiece = minPiece
        self.acceptAny = acceptAny
        self.hooks = hooks
    }

    public var isEmpty: Bool {
        headers.isEmpty && cookies.isEmpty && userAgent == nil && proxy == nil && connections == nil && minPiece == nil
            && acceptAny != true && hooks == nil && crawl == nil && fileURLs != true && warc == nil
    }

    public func encoded() -> [UInt8] { JSON.encode(self) }

    /// The options a list's request file holds (`ListFiles.requestOptions(ofList:)`); nil for none.
    public static func decoded(_ bytes: [UInt8]?) -> RequestOptions? {
        bytes.flatMap { JSON.decode(RequestOptions.self, from: $0) }
    }

    /// The schemes libcurl's proxies speak that SPEC §12 names.
    public static let proxySchemes = ["http", "https", "socks5", "socks5h"]

    /// The names of the headers, as given (no value).
    public var headerNames: [String] {
        headers.map { String($0[..<($0.firstIndex(of: ":") ?? $0.endIndex)]) }
    }

    /// The proxy without its user and password: what the status may show.
    public var shownProxy: String? {
        guard let proxy, let scheme = proxy.firstRange(of: "://") else { return proxy }
        let rest = proxy[scheme.upperBound...]
        guard let at = rest.lastIndex(of: "@") else { return proxy }
        return String(proxy[..<scheme.upperBound]) + rest[rest.index(after: at)...]
    }

    /// `line` as a header (`Name: value`, the name an HTTP token, the value free of line breaks), with
    /// the spaces around the value trimmed; throws the reason it is not one.
    public static func header(_ line: String) throws(RequestOptionError) -> String {
        guard let colon = line.firstIndex(of: ":") else {
            throw RequestOptionError("the header '\(Self.nameOnly(line))…' is not 'Name: value'")
        }
        let name = line[..<colon]
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
            throw RequestOptionError("the header name '\(name.prefix(40))' is not an HTTP field name")
        }
        let value = line[line.index(after: colon)...].trimmingBytes { $0 == 0x20 || $0 == 0x09 }
        guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
            throw RequestOptionError("the value of header \(name) holds a line break or a control character")
        }
        return "\(name): \(value)"
    }

    /// `url` as a proxy, checked; throws the reason it is not one.
    public static func proxy(_ url: String) throws(RequestOptionError) -> String {
        guard let separator = url.firstRange(of: "://") else {
            throw RequestOptionError("the proxy must be a URL such as socks5h://host:1080 or http://host:3128")
        }
        let scheme = url[..<separator.lowerBound].lowercased()
        guard proxySchemes.contains(scheme) else {
            throw RequestOptionError("unsupported proxy scheme '\(scheme)': use "
                + proxySchemes.joined(separator: ", "))
        }
        let rest = url[separator.upperBound...]
        let host = rest[(rest.lastIndex(of: "@").map(rest.index(after:)) ?? rest.startIndex)...]
        guard !host.isEmpty, !host.hasPrefix(":"), !host.hasPrefix("/"),
              url.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw RequestOptionError("the proxy URL names no host")
        }
        return scheme + url[separator.lowerBound...]
    }

    /// The part of a bad header that may be shown: up to its colon or first space, so no value is echoed.
    private static func nameOnly(_ text: String) -> String {
        String(text.prefix { $0 != ":" && $0 != " " && $0 != "\t" }.prefix(40))
    }

    /// RFC 9110's tchar.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

/// Why a request option is refused, in one line that shows no secret.
public struct RequestOptionError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) { self.description = description }
}

extension Substring {
    fileprivate func trimmingBytes(_ drop: (UInt8) -> Bool) -> Substring {
        let utf8 = self.utf8
        guard let first = utf8.firstIndex(where: { !drop($0) }) else { return self[endIndex...] }
        let last = utf8.lastIndex(where: { !drop($0) })!
        return self[first...last]
    }
}
