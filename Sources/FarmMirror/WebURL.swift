/// An absolute http or https URL in the one form the crawl compares, stores and fetches: scheme and host
/// lowercased, the default port (80, 443) dropped, dot segments removed, an empty path made "/", the
/// fragment dropped. Percent-encoding is kept as written, and the characters a URL cannot hold (spaces,
/// controls, `"<>\^`{|}`, bytes past ASCII, a "%" without two hex digits) are percent-encoded first, as
/// GNU wget's `reencode_escapes` does, so the same link gives the same URL in both.
public struct WebURL: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let scheme: String
    /// "user:password" as written, without the "@".
    public let userinfo: String?
    /// Lowercased; an IPv6 literal keeps its brackets.
    public let host: String
    /// The port written in the URL when it is not the scheme's default.
    public let explicitPort: Int?
    /// Begins with "/".
    public let path: String
    /// Without the "?"; an empty query ("page?") is kept, as wget keeps it.
    public let query: String?

    /// Parses an absolute http(s) URL; nil for any other scheme, a missing or empty host, or a bad port.
    public init?(_ text: String) {
        self.init(reference: URIReference(parsing: Self.escapingIllegalCharacters(text)))
    }

    /// The URL `reference` (a link as written in a page, entities already decoded) names against this one.
    public func resolving(_ reference: String) -> WebURL? {
        let parsed = URIReference(parsing: Self.escapingIllegalCharacters(reference))
        return WebURL(reference: parsed.resolved(against: uriReference))
    }

    init?(reference: URIReference) {
        guard let rawScheme = reference.scheme, let authority = reference.authority else { return nil }
        let scheme = rawScheme.lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var hostAndPort = Substring(authority)
        if let at = hostAndPort.lastIndex(of: "@") {
            userinfo = String(hostAndPort[..<at])
            hostAndPort = hostAndPort[hostAndPort.index(after: at)...]
        } else {
            userinfo = nil
        }
        var portText: Substring?
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return nil }
            let after = hostAndPort[hostAndPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
            hostAndPort = hostAndPort[...close]
        } else if let colon = hostAndPort.lastIndex(of: ":") {
            portText = hostAndPort[hostAndPort.index(after: colon)...]
            hostAndPort = hostAndPort[..<colon]
        }
        guard !hostAndPort.isEmpty else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        var port: Int?
        // An empty port is the default one (RFC 3986 §3.2.3).
        if let portText, !portText.isEmpty {
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(portText), number <= 65535 else { return nil }
            port = number == defaultPort ? nil : number
        }
        self.scheme = scheme
        host = hostAndPort.lowercased()
        explicitPort = port
        let path = URIReference.removingDotSegments(reference.path)
        self.path = path.isEmpty ? "/" : path
        query = reference.query
    }

    public var port: Int { explicitPort ?? (scheme == "https" ? 443 : 80) }

    /// "host" or "host:port" when the port is not the default.
    public var hostAndPort: String { explicitPort.map { "\(host):\($0)" } ?? host }

    /// scheme://host[:port], the unit of robots.txt and of §10's manners.
    public var origin: String { "\(scheme)://\(hostAndPort)" }

    /// This origin's robots.txt.
    public var robotsURL: WebURL {
        WebURL(scheme: scheme, userinfo: nil, host: host, explicitPort: explicitPort, path: "/robots.txt", query: nil)
    }

    private init(scheme: String, userinfo: String?, host: String, explicitPort: Int?, path: String, query: String?) {
        self.scheme = scheme
        self.userinfo = userinfo
        self.host = host
        self.explicitPort = explicitPort
        self.path = path
        self.query = query
    }

    /// The path and query as sent in a request line.
    public var pathAndQuery: String { query.map { path + "?" + $0 } ?? path }

    public var description: String {
        "\(scheme)://" + (userinfo.map { $0 + "@" } ?? "") + hostAndPort + pathAndQuery
    }

    public static func < (lhs: WebURL, rhs: WebURL) -> Bool { lhs.description < rhs.description }

    var uriReference: URIReference {
        URIReference(scheme: scheme, authority: (userinfo.map { $0 + "@" } ?? "") + hostAndPort, path: path,
                     query: query)
    }

    /// The path's directory without its leading "/" and without a trailing one, percent-decoded: wget's
    /// `u->dir` ("a/b" for "/a/b/c.html", "" for "/c.html"), what `--no-parent` and `--exclude-dirs` compare.
    public var directory: String {
        let lastSlash = path.lastIndex(of: "/")!
        guard lastSlash > path.startIndex else { return "" }
        return Self.percentDecoded(path[path.index(after: path.startIndex)..<lastSlash])
    }

    /// The last segment of the path, percent-decoded (empty for a path ending in "/"): wget's `u->file`,
    /// what `--accept` and `--reject` compare.
    public var fileName: String {
        Self.percentDecoded(path[path.index(after: path.lastIndex(of: "/")!)...])
    }

    /// wget's `reencode_escapes`: what is unsafe and not reserved is encoded, and a "%" not followed by two
    /// hex digits; everything else (reserved characters, "#", valid escapes) is left as written.
    public static func escapingIllegalCharacters(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var changed = false
        for (index, byte) in bytes.enumerated() {
            let escape: Bool
            if byte == 0x25 {
                escape = !(index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2]))
            } else {
                escape = unsafe[Int(byte)]
            }
            if escape {
                changed = true
                output.append(0x25)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            } else {
                output.append(byte)
            }
        }
        return changed ? String(decoding: output, as: UTF8.self) : text
    }

    static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// wget's `urlchr_table`: unsafe and not reserved (controls, space, `"<>\^`{|}`, DEL, bytes past ASCII).
    private static let unsafe: [Bool] = (0..<256).map { byte in
        byte <= 0x20 || byte >= 0x7F || "\"<>\\^`{|}".utf8.contains(UInt8(byte))
    }

    static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66)
    }

    static func hexValue(_ byte: UInt8) -> UInt8 {
        byte <= 0x39 ? byte - 0x30 : (byte | 0x20) - 0x61 + 10
    }

    /// %XX sequences decoded to their bytes (invalid UTF-8 repaired), other bytes as they are.
    public static func percentDecoded(_ text: Substring) -> String {
        guard text.utf8.contains(0x25) else { return String(text) }
        return String(decoding: percentDecodedBytes(Array(text.utf8)), as: UTF8.self)
    }

    static func percentDecodedBytes(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x25, index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                output.append(hexValue(bytes[index + 1]) << 4 | hexValue(bytes[index + 2]))
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }
}
