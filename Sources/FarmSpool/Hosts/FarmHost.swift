import FarmSystem

/// A machine whose farm processes share the spool (SPEC §11), named by its host name.
///
/// `raw` names the host in the spool (registry entries, `control/desired.<raw>.json`,
/// `control/supervisor.<raw>.lock`): the host name in lower case (host names are case-insensitive),
/// escaped by `NameEscape`, so it holds no `/` and is never empty. Claims carry `tag`, a short digest of
/// it (`Owner`). The host of this process is `local`, read once. A value; any thread.
public struct FarmHost: Hashable, Sendable, CustomStringConvertible {
    public let raw: String

    /// The host named `name` (as gethostname(2) or the user gives it).
    public init(name: String) {
        // A machine without a name (none was ever set) is still one host.
        raw = NameEscape.escape(name.isEmpty ? "localhost" : name.lowercased())
    }

    /// The host whose `raw` is `name`; nil when `name` cannot be one.
    public init?(raw name: String) {
        guard !name.isEmpty, name.utf8.allSatisfy({ NameEscape.isPlain($0) || $0 == UInt8(ascii: "%") }) else {
            return nil
        }
        raw = name
    }

    /// The host name, for people.
    public var description: String { NameEscape.unescape(raw) }

    /// 8 lowercase hex digits of `raw`'s FNV-1a: what a claim's owner carries to say which host made it.
    /// Two hosts of one spool share a tag once in about 4 billion pairs; their supervisors say so in the log.
    public var tag: String { Self.tag(of: raw) }

    private static func tag(of raw: String) -> String {
        var hash = FNV1a()
        hash.add(raw)
        return String(hash.hex.suffix(8))
    }

    /// The machine this process runs on.
    public static let local = FarmHost(name: Processes.hostName)
    /// Its tag, hashed once: every claim and scratch name carries it.
    public static let localTag = local.tag

    /// Whether `self` is the machine this process runs on.
    public var isLocal: Bool { self == Self.local }
}
