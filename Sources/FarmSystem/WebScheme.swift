/// The schemes farm fetches (SPEC §5): `http` and `https`, in any case, followed by `://`. Every "is this a
/// web URL?" of farm is this one test (a manifest's source, a text list's lines, a page's next link, a job's
/// URL, a redirect's target, a host's key), read off the bytes: Foundation's URL parser cost 1 % of a short
/// job, and nothing here allocates.
public enum WebScheme: String, Sendable {
    case http, https

    /// The scheme of `url`; nil when it is neither, or not followed by `://`.
    public init?(of url: some StringProtocol) {
        self.init(bytes: url.utf8)
    }

    /// The scheme the bytes of a URL start with; nil as `init(of:)`.
    public init?(bytes: some Sequence<UInt8>) {
        // Up to the first colon, folded to lower case, packed into one word: "https" is the longest.
        var packed: UInt64 = 0, length = 0
        var rest = bytes.makeIterator()
        while true {
            guard let byte = rest.next() else { return nil }
            if byte == UInt8(ascii: ":") { break }
            guard length < 5 else { return nil }
            packed = packed << 8 | UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
            length += 1
        }
        guard rest.next() == UInt8(ascii: "/"), rest.next() == UInt8(ascii: "/") else { return nil }
        switch packed {
        case 0x68_74_74_70: self = .http  // "http", a byte each
        case 0x68_74_74_70_73: self = .https
        default: return nil
        }
    }

    /// How many bytes `<scheme>://` takes: where the authority starts.
    public var prefixLength: Int { rawValue.utf8.count + 3 }

    /// The port a URL of this scheme means when it names none.
    public var defaultPort: Int { self == .https ? 443 : 80 }
}
