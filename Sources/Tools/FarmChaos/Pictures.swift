import FarmConvert
import FarmFixtures
import FarmSpool
import FarmSystem
import FarmZip
import Foundation

/// The corpus's content, drawn on the spot from a seed: every resource differs, so a mix-up shows in
/// its digest. PNGs are written uncompressed (stored deflate blocks) so their size is exact and cheap;
/// JPEGs go through libjpeg-turbo, PDFs through `PDFWriter`, ZIPs through `ZipWriter`. Stateless.
enum Pictures {
    /// A valid RGB PNG of about `size` bytes whose pixels come from `seed`.
    static func png(size: Int, seed: UInt64) -> [UInt8] {
        let width = 64
        let height = max(1, (size - 100) / (width * 3 + 1))
        var random = SplitMix64(seed: seed)
        return StoredPNG.make(width: width, height: height) { _ in
            var row: [UInt8] = []
            for _ in 0..<(width * 3) / 8 { withUnsafeBytes(of: random.next()) { row.append(contentsOf: $0) } }
            return row
        }
    }

    /// A valid JPEG of `width`×`height` with grain from `seed` (grain does not compress: big files).
    static func jpeg(width: Int, height: Int, seed: UInt64, scratch: String) throws -> [UInt8] {
        var random = SplitMix64(seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let tint = UInt8(truncatingIfNeeded: seed &* 37)
        for i in 0..<pixels.count {
            pixels[i] = tint &+ UInt8(truncatingIfNeeded: random.next() & 0x7F)
        }
        let path = scratch + "/jpeg-\(seed).jpg"
        try JPEGEncoder.write(pixels, width: width, height: height, layout: .rgb, quality: 90, to: path)
        defer { unlink(path) }
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A one-page A5 PDF titled `title`, padded with an unreferenced stream to about `size` bytes.
    static func pdf(title: String, size: Int, seed: UInt64) -> [UInt8] {
        let content = "0.3 0.5 0.8 rg 40 300 340 220 re f 0 0 0 rg BT /F1 24 Tf 40 540 Td (\(title)) Tj ET"
        var objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 595] /Resources << /Font << /F1 3 0 R >> >> "
                + "/Contents 5 0 R >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
        ]
        let padding = max(0, size - 900)
        if padding > 0 {
            var random = SplitMix64(seed: seed)
            let letters = Array("0123456789abcdef".utf8)
            var text = [UInt8](repeating: 0, count: padding)
            for i in 0..<padding { text[i] = letters[Int(random.next() & 15)] }
            objects.append("<< /Length \(padding) >>\nstream\n" + String(decoding: text, as: UTF8.self) + "\nendstream")
        }
        return PDFWriter.assemble(objects)
    }

    /// A ZIP holding one entry, stored (its content is noise or already compressed).
    static func zip(entry name: String, bytes: [UInt8], scratch: String, seed: UInt64) throws -> [UInt8] {
        let path = scratch + "/zip-\(seed).zip"
        try ZipWriter.write(path: path, entries: [(name, bytes)], method: .store)
        defer { unlink(path) }
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
