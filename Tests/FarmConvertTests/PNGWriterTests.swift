import CFarmPng
@testable import FarmConvert
import FarmTestSupport
import Foundation
import Testing

/// The fast PNG writer (CFarmPng): what it writes must decode, with another decoder (cairo's), to
/// exactly the pixels it was given, in both layouts; and a write that cannot happen says why and
/// leaves nothing behind.
@Suite struct PNGWriterTests {
    /// Every pixel different, in every channel, so a swapped or shifted channel shows.
    private func pattern(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        (UInt8(truncatingIfNeeded: x * 7 + y), UInt8(truncatingIfNeeded: y * 13 + x * 3), UInt8(truncatingIfNeeded: x ^ y))
    }

    @Test func rgbPixelsRoundTrip() throws {
        let (width, height) = (97, 61)
        var words = [UInt32](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let (red, green, blue) = pattern(x: x, y: y)
                words[y * width + x] = UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
            }
        }
        let image = try words.withUnsafeBytes { bytes in
            try ImageSurface(rgb24: bytes.baseAddress!, width: width, height: height, stride: width * 4)
        }
        let dir = TemporaryDirectory()
        let path = dir.appending("out.png")
        try image.writePNG(to: path)

        let back = try ImageSurface(png: path)
        #expect(back.width == width && back.height == height && !back.hasAlpha)
        for y in 0..<height {
            for x in 0..<width {
                let pixel = back.rgba(x: x, y: y)
                let (red, green, blue) = pattern(x: x, y: y)
                guard pixel.red == red && pixel.green == green && pixel.blue == blue else {
                    Issue.record("pixel (\(x), \(y)) is \(pixel), not \((red, green, blue))")
                    return
                }
            }
        }
    }

    @Test func greyPixelsRoundTrip() throws {
        let (width, height) = (50, 33)
        var words = [UInt32](repeating: 0, count: width * height)
        for index in words.indices { words[index] = UInt32(index % 251) * 0x01_0101 }
        let image = try words.withUnsafeBytes { bytes in
            try ImageSurface(rgb24: bytes.baseAddress!, width: width, height: height, stride: width * 4)
        }
        let grey = try #require(try image.grayscaleCopy())
        let dir = TemporaryDirectory()
        let path = dir.appending("grey.png")
        try grey.writePNG(to: path)
        // Colour type 0 (grey) in the IHDR chunk: byte 25 of the file.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path))[25] == 0)
        let back = try ImageSurface(png: path)
        for index in words.indices {
            let pixel = back.rgba(x: index % width, y: index / width)
            #expect(pixel.red == UInt8(index % 251) && pixel.green == pixel.red && pixel.blue == pixel.red)
            if pixel.red != UInt8(index % 251) { return }
        }
    }

    /// Noise does not compress: a megabyte of it spans many IDAT chunks and many deflate buffers, and
    /// the Adler-32 covers thousands of its 32-byte blocks and its tails.
    @Test func noiseSpanningManyChunksRoundTrips() throws {
        let (width, height) = (701, 499)
        var random = SystemRandomNumberGenerator()
        let words = (0..<width * height).map { _ in UInt32.random(in: 0...0xFF_FFFF, using: &random) }
        let image = try words.withUnsafeBytes { bytes in
            try ImageSurface(rgb24: bytes.baseAddress!, width: width, height: height, stride: width * 4)
        }
        let dir = TemporaryDirectory()
        let path = dir.appending("noise.png")
        try image.writePNG(to: path)
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        let chunks = file.indices.dropLast(4).filter { file[$0..<$0 + 4].elementsEqual("IDAT".utf8) }
        #expect(chunks.count > 10, "\(chunks.count) IDAT chunks in \(file.count) bytes")

        let back = try ImageSurface(png: path)
        #expect(back.width == width && back.height == height)
        for index in words.indices {
            let pixel = back.rgba(x: index % width, y: index / width), word = words[index]
            guard pixel.red == UInt8(word >> 16 & 0xFF), pixel.green == UInt8(word >> 8 & 0xFF),
                  pixel.blue == UInt8(word & 0xFF) else {
                Issue.record("pixel \(index) is \(pixel), not \(String(word, radix: 16))")
                return
            }
        }
    }

    /// The vectorised checksum against the definition, byte by byte: every length around its 32-byte
    /// blocks and its 173-block runs, bytes at their largest, and a checksum carried over.
    @Test func adler32MatchesItsDefinition() {
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<20_000).map { _ in Bool.random(using: &random) ? 0xFF : UInt8.random(in: 0...0xFF, using: &random) }
        func reference(_ start: UInt32, _ count: Int) -> UInt32 {
            var a = start & 0xFFFF, b = start >> 16
            for byte in bytes[..<count] {
                a = (a + UInt32(byte)) % 65521
                b = (b + a) % 65521
            }
            return b << 16 | a
        }
        let lengths = Array(0...300) + [5535, 5536, 5537, 5552, 5600, 11_072, 11_073, 19_999]
        for count in lengths {
            let start: UInt32 = count % 2 == 0 ? 1 : UInt32.random(in: 0..<65521) << 16 | UInt32.random(in: 0..<65521)
            let fast = bytes.withUnsafeBufferPointer { cfarm_adler32(start, $0.baseAddress, count) }
            guard fast == reference(start, count) else {
                Issue.record("length \(count): \(fast), not \(reference(start, count))")
                return
            }
        }
    }

    @Test func aWriteThatCannotHappenSaysWhy() throws {
        let image = try ImageSurface(width: 4, height: 4, alpha: false)
        let error = #expect(throws: ConvertError.self) { try image.writePNG(to: "/nonexistent-dir/x.png") }
        #expect(error?.description.contains("cannot write the PNG: cannot create /nonexistent-dir/x.png") == true,
                "\(String(describing: error))")
    }
}
