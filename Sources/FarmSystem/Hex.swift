/// Bytes as lowercase hex digits, two a byte: how the spool names a SHA-256 (a blob, a URL's record)
/// and how a transfer reports the digest of what it wrote. Stateless; any thread.
public enum Hex {
    /// On raw bytes, not a generic sequence: called across modules a generic ran unspecialized, byte by
    /// byte through a witness table, and cost 2% of a short job.
    public static func lowercase(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = digits[Int(byte >> 4)]
                text[2 * index + 1] = digits[Int(byte & 15)]
            }
            return bytes.count * 2
        }
    }

    /// `text` as a SHA-256 in the spool's form (64 lowercase hex digits) when it is 64 hex digits of
    /// either case, else nil: how a list's `"sha256"` is read (SPEC §12).
    public static func sha256(_ text: String) -> String? {
        let utf8 = text.utf8
        guard utf8.count == 64, utf8.allSatisfy({ digits.contains($0 | 0x20) }) else { return nil }
        return text.lowercased()
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)
}
