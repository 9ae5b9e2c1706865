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

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)
}
