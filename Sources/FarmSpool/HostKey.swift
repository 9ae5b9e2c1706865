/// The host a URL's requests go to, as the per-host limits count them: scheme, host and port
/// (`http://127.0.0.2:8080`), with the host in lower case and the scheme's default port filled in.
///
/// `raw` names the host in the spool (`hosts/<raw>/`, `holds/<raw>`, `queue/h<raw>/`): the same
/// three parts joined by `_`, every byte but a-z, 0-9, `.` and `-` as `%xx`, so no host can make a
/// path or clash with another. A value; any thread.
public struct HostKey: Hashable, Sendable, CustomStringConvertible {
    public let raw: String

    /// The host of `url`; nil when it is not an http(s) URL with a host.
    public init?(url: String) {
        var rest = Substring(url)
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        let scheme = rest[..<colon].lowercased()
        guard scheme == "http" || scheme == "https", rest[colon...].hasPrefix("://") else { return nil }
        rest = rest[rest.index(colon, offsetBy: 3)...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        var port = scheme == "https" ? "443" : "80"
        // The port follows the last colon, unless that colon is inside an IPv6 literal ("[::1]").
        if let last = authority.lastIndex(of: ":"), !authority[last...].contains("]") {
            host = authority[..<last]
            let digits = authority[authority.index(after: last)...]
            if !digits.isEmpty {
                guard digits.allSatisfy(\.isASCII), let number = Int(digits), (0...65535).contains(number) else {
                    return nil
                }
                port = String(number)
            }
        }
        guard !host.isEmpty else { return nil }
        raw = Self.escape(scheme) + "_" + Self.escape(host.lowercased()) + "_" + port
    }

    /// The key whose `raw` is `name`; nil when `name` cannot be one.
    public init?(raw name: String) {
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }),
              name.utf8.allSatisfy({ Self.isPlain($0) || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "_") })
        else { return nil }
        raw = name
    }

    /// `scheme://host:port`, for people.
    public var description: String {
        let parts = raw.split(separator: "_", omittingEmptySubsequences: false).map { Self.unescape($0) }
        guard parts.count == 3 else { return raw }
        return parts[0] + "://" + parts[1] + ":" + parts[2]
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    private static func escape(_ text: some StringProtocol) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            if isPlain(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func unescape(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
