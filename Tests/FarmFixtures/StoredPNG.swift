/// PNG files assembled byte by byte with "stored" (uncompressed) deflate blocks: any pixels and an
/// exact size, with no encoder in the way. For the test fixtures and the benchmark's and chaos
/// runner's corpora, where the bytes themselves are the point. Stateless.
public enum StoredPNG {
    /// An 8-bit PNG of `width` × `height`, RGB (`channels` 3) or RGBA (4, not premultiplied), whose row
    /// `y` is `row(y)` (`width` × `channels` bytes). With `padTo`, a private ancillary chunk (`fmPd`,
    /// which decoders skip) grows the file to exactly that many bytes when it would be smaller.
    public static func make(width: Int, height: Int, channels: Int = 3, padTo size: Int? = nil,
                            row: (Int) -> [UInt8]) -> [UInt8] {
        precondition(channels == 3 || channels == 4, "a stored PNG is RGB or RGBA")
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (1 + width * channels))
        for y in 0..<height {
            raw.append(0)  // filter: none
            raw += row(y)
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let last: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        zlib += bigEndian(adler32(raw))
        let head = header(width: width, height: height, channels: channels)
        let rest = chunk("IDAT", zlib) + chunk("IEND", [])
        guard let size, size >= head.count + rest.count + 12 else { return head + rest }
        return head + chunk("fmPd", [UInt8](repeating: 0x2E, count: size - head.count - rest.count - 12)) + rest
    }

    /// The signature and IHDR of such a PNG, and nothing after (for tests of header readers).
    public static func header(width: Int, height: Int, channels: Int = 3) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, channels == 4 ? 6 : 2, 0, 0, 0])
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 (ISO 3309, as PNG and ZIP use it).
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(UInt32.max) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}
