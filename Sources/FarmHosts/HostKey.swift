import FarmSpool
import FarmSystem

/// The host a URL's requests go to, as the per-host limits count them: scheme, host and port
/// (`http://127.0.0.2:8080`), with the host in lower case and the scheme's default port filled in.
///
/// `raw` names the host in the spool (`hosts/<raw>/`, `holds/<raw>`, `queue/h<raw>/`): the same
/// three parts, each escaped (`NameEscape`: every byte but a-z, 0-9, `.` and `-` as `%xx`), joined by
/// `_`, so no host can make a path or clash with another. A value; any thread.
public struct HostKey: Hashable, Sendable, CustomStringConvertible {
    public let raw: String

    /// The host of `url`; nil when it is not an http(s) URL with a host.
    public init?(url: String) {
        guard let scheme = WebScheme(of: url) else { return nil }
        let rest = url.utf8.dropFirst(scheme.prefixLength)
        var authority = Substring(rest).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        var port = String(scheme.defaultPort)
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
        raw = NameEscape.escape(scheme.rawValue) + "_" + NameEscape.escape(host.lowercased()) + "_" + port
    }

    /// The key whose `raw` is `name`; nil when `name` cannot be one.
    public init?(raw name: String) {
        guard Spool.isHostName(Substring(name)) else { return nil }
        raw = name
    }

    /// `scheme://host:port`, for people.
    public var description: String {
        let parts = raw.split(separator: "_", omittingEmptySubsequences: false).map { NameEscape.unescape($0) }
        guard parts.count == 3 else { return raw }
        return parts[0] + "://" + parts[1] + ":" + parts[2]
    }
}
