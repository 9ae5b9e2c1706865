/// RFC 4648 base32 (upper-case alphabet, `=` padding), the form of WARC digests since Heritrix and wget:
/// `sha1:` + the 32 characters of a SHA-1, which needs no padding.
enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 4) / 5 * 8)
        var buffer: UInt64 = 0, bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt64(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int(buffer >> UInt64(bits) & 31)])
            }
        }
        if bits > 0 { out.append(alphabet[Int(buffer << UInt64(5 - bits) & 31)]) }
        while out.count % 8 != 0 { out.append(UInt8(ascii: "=")) }
        return String(decoding: out, as: UTF8.self)
    }
}
