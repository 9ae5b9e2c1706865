/// What a downloaded resource is, told by its first bytes (never by its URL or Content-Type).
public enum Kind: String, Sendable, Codable, CaseIterable {
    case jpg, png, gif, webp, pdf, zip
    /// Bytes of none of the kinds above, kept as downloaded by a list that accepts any (`farm add --accept
    /// any`, SPEC §15): never what `sniff` finds, and never converted.
    case other

    /// How many leading bytes `sniff` needs: a WebP is told by its RIFF header's form type, at 8 to 12.
    public static let sniffLength = 12

    /// The kind whose magic number `prefix` starts with, or nil (an HTML page named `.jpg`, say):
    /// the caller fails the resource with "unsupported content", unless its list accepts any.
    public static func sniff(_ prefix: some Collection<UInt8>) -> Kind? {
        // Compared in place with constants: it runs once a job, and an array made for each magic number
        // compared was 2% of a short job.
        Array(prefix.prefix(sniffLength)).withUnsafeBytes(sniff(head:))
    }

    /// `sniff` of bytes already in an array, as a transfer keeps a file's head: read where they are. The
    /// generic one runs unspecialized from other modules, and its copy through `prefix` was 2% of a
    /// worker's CPU on short jobs.
    public static func sniff(_ bytes: [UInt8]) -> Kind? {
        bytes.withUnsafeBytes { sniff(head: UnsafeRawBufferPointer(rebasing: $0.prefix(sniffLength))) }
    }

    /// `sniff` of the first bytes, at most `sniffLength` of them.
    private static func sniff(head bytes: UnsafeRawBufferPointer) -> Kind? {
        func has(_ magic: StaticString, at offset: Int = 0) -> Bool {
            let count = magic.utf8CodeUnitCount
            guard bytes.count >= offset + count else { return false }
            for index in 0..<count where bytes[offset + index] != magic.utf8Start[index] { return false }
            return true
        }
        /// Whether the first `count` bytes, read big-endian, are `magic`.
        func has(_ magic: UInt64, count: Int) -> Bool {
            bytes.count >= count && bytes.prefix(count).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == magic
        }
        if has(0xFF_D8FF, count: 3) { return .jpg }
        if has(0x8950_4E47_0D0A_1A0A, count: 8) { return .png }
        if has("GIF87a") || has("GIF89a") { return .gif }
        if has("RIFF") && has("WEBP", at: 8) { return .webp }
        if has("%PDF-") { return .pdf }
        // A local file header, or the end record of an empty archive (refused later as holding nothing).
        if has(0x504B_0304, count: 4) || has(0x504B_0506, count: 4) { return .zip }
        return nil
    }

    /// The kinds whose display image is a picture decoded from their bytes (their first frame).
    public var isPicture: Bool { [.jpg, .png, .gif, .webp].contains(self) }

    /// The file name extension outputs of this kind get (an `other` download's comes from its URL:
    /// `otherExtension(url:)`).
    public var fileExtension: String { rawValue }

    /// The extension of the last segment of `url`'s path (`archive.tar.gz`: `gz`), lowercased, when it is
    /// 1 to 10 ASCII letters and digits: what a download of kind `other` is stored and delivered with.
    /// nil when it has none, or one that is no plain word or names a kind farm tells by the bytes.
    public static func otherExtension(url: String) -> String? {
        var path = Substring(url)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        if let scheme = path.range(of: "://") { path = path[scheme.upperBound...] }
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
