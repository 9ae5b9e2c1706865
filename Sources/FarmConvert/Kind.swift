import FarmSystem

/// What a downloaded resource is, told by its first bytes (never by its URL or Content-Type).
public enum Kind: String, Sendable, Codable, CaseIterable {
    case jpg, png, gif, webp, pdf, zip
    /// Bytes of none of the kinds above, kept as downloaded by a list that accepts any (`farm add --accept
    /// any`, SPEC §15): never what `sniff` finds, and never converted.
    case other

    /// How many leading bytes `sniff` needs.
    public static let sniffLength = FileMagic.length

    /// The kind whose magic number `prefix` starts with (`FileMagic`), or nil (an HTML page named `.jpg`,
    /// say): the caller fails the resource with "unsupported content", unless its list accepts any.
    public static func sniff(_ prefix: some Collection<UInt8>) -> Kind? {
        // The copy is made here, specialized in this module; FileMagic reads it where it lies.
        Array(prefix.prefix(sniffLength)).withUnsafeBytes { FileMagic.of(head: $0) }.map(Kind.init)
    }

    /// `sniff` of bytes already in an array, as a transfer keeps a file's head: read where they are. The
    /// generic one runs unspecialized from other modules, and its copy through `prefix` was 2% of a
    /// worker's CPU on short jobs.
    public static func sniff(_ bytes: [UInt8]) -> Kind? {
        bytes.withUnsafeBytes { FileMagic.of(head: UnsafeRawBufferPointer(rebasing: $0.prefix(sniffLength))) }
            .map(Kind.init)
    }

    /// The kind of bytes whose magic number is `magic`.
    public init(_ magic: FileMagic) {
        switch magic {
        case .jpg: self = .jpg
        case .png: self = .png
        case .gif: self = .gif
        case .webp: self = .webp
        case .pdf: self = .pdf
        case .zip: self = .zip
        }
    }

    /// The kinds whose display image is a picture decoded from their bytes (their first frame).
    public var isPicture: Bool { [.jpg, .png, .gif, .webp].contains(self) }

    /// The file name extension outputs of this kind get (an `other` download's comes from its URL:
    /// `otherExtension(url:)`).
    public var fileExtension: String { rawValue }

    /// The extension a download of this kind from `url` is stored in the spool with: its kind's, or for bytes
    /// of kind `other` its URL's, else `other` (a spool output is always `<index>.<suffix>`).
    public func storedExtension(url: String) -> String {
        self == .other ? Self.otherExtension(url: url) ?? "other" : fileExtension
    }

    /// The extension of the last segment of `url`'s path (`archive.tar.gz`: `gz`), lowercased, when it is
    /// 1 to 10 ASCII letters and digits: what a download of kind `other` is stored and delivered with.
    /// nil when it has none, or one that is no plain word or names a kind farm tells by the bytes.
    public static func otherExtension(url: String) -> String? {
        var path = Substring(url)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        if let scheme = path.firstRange(of: "://") { path = path[scheme.upperBound...] }
        guard let slash = path.lastIndex(of: "/") else { return nil }  // no path: a host alone
        let name = path[path.index(after: slash)...]
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        let plain = ext.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
        // A picture's or archive's extension on bytes that are none: the URL is wrong about them.
        guard (1...10).contains(ext.utf8.count), plain, Kind(rawValue: ext) == nil, ext != "jpeg", ext != "unzipped"
        else { return nil }
        return ext
    }
}
