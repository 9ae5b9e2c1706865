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
        let bytes = Array(prefix.prefix(sniffLength))
        func has(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
        }
        if has([0xFF, 0xD8, 0xFF]) { return .jpg }
        if has([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if has(Array("GIF87a".utf8)) || has(Array("GIF89a".utf8)) { return .gif }
        if has(Array("RIFF".utf8)) && has(Array("WEBP".utf8), at: 8) { return .webp }
        if has(Array("%PDF-".utf8)) { return .pdf }
        // A local file header, or the end record of an empty archive (refused later as holding nothing).
        if has([0x50, 0x4B, 0x03, 0x04]) || has([0x50, 0x4B, 0x05, 0x06]) { return .zip }
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
