import FarmConvert
import FarmFixtures
import FarmSystem
import Foundation

/// Seeded, the corpus is the same bytes on every run and every machine.
extension SplitMix64 {
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var i = 0
            while i < count {
                var word = next()
                for _ in 0..<min(8, count - i) {
                    buffer[i] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    i += 1
                }
            }
            initialized = count
        }
    }
}

/// Valid files of the four kinds farm handles, built byte by byte to an exact size where the format
/// allows padding (JPEG comment segments, a private PNG chunk, a PDF comment, a stored ZIP entry).
enum CorpusFormats {
    /// `encoded` (a JPEG) grown to exactly `size` bytes with comment (COM) segments of `random` bytes
    /// right after SOI: every decoder skips them by their length.
    static func paddedJPEG(_ encoded: [UInt8], to size: Int, random: inout SplitMix64) -> [UInt8] {
        var left = size - encoded.count
        precondition(left == 0 || left >= 4, "no room for a JPEG comment")
        var out: [UInt8] = [0xFF, 0xD8]
        out.reserveCapacity(size)
        while left > 0 {
            var segment = min(left, 2 + 65535)
            if (1..<4).contains(left - segment) { segment = left - 4 }  // leave room for one whole segment
            let length = segment - 2
            out += [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)]
            out += random.bytes(length - 2)
            left -= segment
        }
        out += encoded.dropFirst(2)
        return out
    }

    /// A JPEG of `width` × `height` pixels of smooth colour plus noise (as costly to decode as a photo).
    static func photoJPEG(width: Int, height: Int, quality: Int, random: inout SplitMix64,
                          scratch: String) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            var word = random.next()
            for x in 0..<width {
                if x % 8 == 0 { word = random.next() }
                let noise = Int(word & 31)
                word >>= 5
                let i = (y * width + x) * 3
                pixels[i] = UInt8(min(255, x * 200 / width + noise))
                pixels[i + 1] = UInt8(min(255, y * 200 / height + noise))
                pixels[i + 2] = UInt8(min(255, (x + y) * 100 / (width + height) + 2 * noise))
            }
        }
        try JPEGEncoder.write(pixels, width: width, height: height, layout: .rgb, quality: quality, to: scratch)
        defer { unlink(scratch) }
        return Array(try Data(contentsOf: URL(fileURLWithPath: scratch)))
    }

    /// An RGB PNG of `width` × `height` random pixels, stored (no compression), padded to `size` bytes
    /// when that is larger.
    static func png(width: Int, height: Int, size: Int? = nil, random: inout SplitMix64) -> [UInt8] {
        StoredPNG.make(width: width, height: height, padTo: size) { _ in random.bytes(width * 3) }
    }

    /// A one-page A4 PDF of coloured rectangles, its content stream padded with a comment to about `size` bytes.
    static func pdf(size: Int, random: inout SplitMix64) -> [UInt8] {
        var content = ""
        for _ in 0..<6 {
            let (r, g, b) = (random.below(100), random.below(100), random.below(100))
            let (x, y) = (random.below(400), random.below(650))
            content += String(format: "%.2f %.2f %.2f rg %d %d %d %d re f\n", Double(r) / 100, Double(g) / 100,
                              Double(b) / 100, x, y, 60 + random.below(135), 60 + random.below(130))
        }
        func assemble(_ content: String) -> [UInt8] {
            PDFWriter.assemble([
                "<< /Type /Catalog /Pages 2 0 R >>",
                "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
                "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            ])
        }
        let bare = assemble(content).count
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let comment = (0..<max(0, size - bare - 2)).map { _ in letters[random.below(letters.count)] }
        return assemble(content + "%" + String(decoding: comment, as: UTF8.self) + "\n")
    }

    /// A ZIP of stored entries (no compression), with a Unix mode of 0644 each.
    static func zip(_ entries: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let name = Array(entry.name.utf8)
            let crc = littleEndian(StoredPNG.crc32(entry.bytes))
            let size = littleEndian(UInt32(entry.bytes.count))
            let common: [UInt8] = [20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0] + crc + size + size
                + littleEndian(UInt16(name.count)) + [0, 0]
            central += [0x50, 0x4B, 0x01, 0x02, 20, 3] + common + [0, 0, 0, 0, 0, 0]
                + littleEndian(UInt32(0o100644) << 16) + littleEndian(UInt32(out.count)) + name
            out += [0x50, 0x4B, 0x03, 0x04] + common + name + entry.bytes
        }
        let centralOffset = out.count
        out += central
        out += [0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0] + littleEndian(UInt16(entries.count))
            + littleEndian(UInt16(entries.count)) + littleEndian(UInt32(central.count))
            + littleEndian(UInt32(centralOffset)) + [0, 0]
        return out
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
    }

    private static func littleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
