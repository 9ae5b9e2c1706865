/// What a file is by its magic number, its first bytes: the one place they are written down. The worker's
/// `Kind` (FarmConvert) is told by it, and `farm add` by it tells a picture, a PDF or a zip given in place of
/// a list (issue 66). Stateless; any thread.
public enum FileMagic: String, Sendable, CaseIterable {
    case jpg, png, gif, webp, pdf, zip

    /// How many leading bytes `of` needs: a WebP is told by its RIFF header's form type, at 8 to 12.
    public static let length = 12

    /// The kind whose magic number `bytes` start with, or nil (an HTML page named `.jpg`, text, JSON).
    /// Not generic: a generic runs unspecialized from other modules, and the worker calls this for every job.
    public static func of(_ bytes: [UInt8]) -> FileMagic? {
        bytes.withUnsafeBytes { of(head: UnsafeRawBufferPointer(rebasing: $0.prefix(length))) }
    }

    /// `of` the first bytes, read where they lie (only the first `length` are looked at). Compared in place
    /// with constants: it runs once a job, and an array made for each magic number compared was 2% of a
    /// short job.
    public static func of(head bytes: UnsafeRawBufferPointer) -> FileMagic? {
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

    /// What a user calls it: "a JPEG picture", "a PDF document", "a zip archive".
    public var phrase: String {
        switch self {
        case .jpg: "a JPEG picture"
        case .png: "a PNG picture"
        case .gif: "a GIF picture"
        case .webp: "a WebP picture"
        case .pdf: "a PDF document"
        case .zip: "a zip archive"
        }
    }
}
