/// What a downloaded resource is, told by its first bytes (never by its URL or Content-Type).
public enum Kind: String, Sendable, Codable, CaseIterable {
    case jpg, png, pdf, zip

    /// How many leading bytes `sniff` needs.
    public static let sniffLength = 8

    /// The kind whose magic number `prefix` starts with, or nil (an HTML page named `.jpg`, say):
    /// the caller fails the resource with "unsupported content".
    public static func sniff(_ prefix: some Collection<UInt8>) -> Kind? {
        let bytes = Array(prefix.prefix(sniffLength))
        func starts(_ magic: [UInt8]) -> Bool { bytes.count >= magic.count && Array(bytes[0..<magic.count]) == magic }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("%PDF-".utf8)) { return .pdf }
        // A local file header, or the end record of an empty archive (refused later as holding nothing).
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) { return .zip }
        return nil
    }

    /// The file name extension outputs of this kind get.
    public var fileExtension: String { rawValue }
}
