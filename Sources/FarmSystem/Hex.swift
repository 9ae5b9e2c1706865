/// Bytes as lowercase hex digits, two a byte: how the spool names a SHA-256 (a blob, a URL's record)
/// and how a transfer reports the digest of what it wrote. Stateless; any thread.
public enum Hex {
    public static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
