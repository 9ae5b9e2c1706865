@testable import FarmConvert
import FarmFixtures
import FarmTestSupport
import Foundation
import Testing

@Suite struct ThumbnailTests {
    let dir = TemporaryDirectory()

    /// No temporary file is ever left next to the outputs.
    private func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
    }

    @Test(arguments: [(4000, 3000), (3000, 4000), (1999, 1001), (300, 257)])
    func bigJPEGShrinksToFitWithItsAspectAndColours(width: Int, height: Int) throws {
        let jpeg = try dir.write(JPEGFixture.quadrants(width: width, height: height), "big.jpg")
        let size = try Thumbnail.make(from: jpeg, kind: .jpg, to: dir.appending("big.thumb.png"))
        let expected = Thumbnail.fit(width: width, height: height, maxSide: 256)
        #expect(size == expected)
        #expect(max(size.width, size.height) == 256)
        // The aspect ratio is the file's to within one pixel's rounding.
        #expect(abs(Double(size.width) / Double(size.height) - Double(width) / Double(height))
            < 1.0 / Double(min(size.width, size.height)))
        let thumbnail = try PNGImage(path: dir.appending("big.thumb.png"))
        #expect(thumbnail.width == size.width && thumbnail.height == size.height && !thumbnail.hasAlpha)
        let (w, h) = (thumbnail.width, thumbnail.height)
        let centres = [(w / 4, h / 4), (3 * w / 4, h / 4), (w / 4, 3 * h / 4), (3 * w / 4, 3 * h / 4)]
        for (centre, colour) in zip(centres, JPEGFixture.quadrantColours) {
            let pixel = thumbnail.pixel(x: centre.0, y: centre.1)
            #expect(near(pixel, colour, within: 40), "pixel at \(centre) is \(pixel), expected about \(colour)")
        }
        #expect(try leftovers().isEmpty)
    }

    @Test func bigJPEGIsDecodedAtAnEighthByTheDCT() throws {
        let jpeg = try dir.write(JPEGFixture.quadrants(width: 4000, height: 3000), "big.jpg")
        let decoded = try JPEGDecoder.decode(jpeg, minSide: 256)
        #expect(decoded.sourceWidth == 4000 && decoded.sourceHeight == 3000)
        #expect(decoded.image.width == 500 && decoded.image.height == 375)
        // At 1/16 it would be smaller than the thumbnail: 1/4 is the most a 1200 px image may shrink.
        let medium = try dir.write(JPEGFixture.quadrants(width: 1200, height: 900), "medium.jpg")
        #expect(try JPEGDecoder.decode(medium, minSide: 256).image.width == 300)
    }

    @Test func grayscaleJPEGStaysGray() throws {
        let jpeg = try dir.write(JPEGFixture.grayHalves(width: 800, height: 400), "gray.jpg")
        let size = try Thumbnail.make(from: jpeg, kind: .jpg, to: dir.appending("gray.thumb.png"))
        #expect(size == (256, 128))
        let thumbnail = try PNGImage(path: dir.appending("gray.thumb.png"))
        #expect(near(thumbnail.pixel(x: 64, y: 64), (0, 0, 0), within: 20))
        #expect(near(thumbnail.pixel(x: 192, y: 64), (255, 255, 255), within: 20))
    }

    @Test func adobeCMYKJPEGGetsItsColours() throws {
        let jpeg = try dir.write(JPEGFixture.cmykHalves(width: 600, height: 300), "cmyk.jpg")
        try Thumbnail.make(from: jpeg, kind: .jpg, to: dir.appending("cmyk.thumb.png"))
        let thumbnail = try PNGImage(path: dir.appending("cmyk.thumb.png"))
        #expect(near(thumbnail.pixel(x: 64, y: 64), (0, 255, 255), within: 40), "cyan: \(thumbnail.pixel(x: 64, y: 64))")
        #expect(near(thumbnail.pixel(x: 192, y: 64), (255, 255, 0), within: 40), "yellow: \(thumbnail.pixel(x: 192, y: 64))")
    }

    @Test func pngKeepsItsAlpha() throws {
        // Left: opaque red. Right: transparent at the top, half-transparent blue at the bottom.
        let png = PNGFixture.rgba(width: 600, height: 400) { x, y in
            x < 300 ? [255, 0, 0, 255] : y < 200 ? [0, 0, 0, 0] : [0, 0, 255, 128]
        }
        let path = try dir.write(png, "alpha.png")
        let size = try Thumbnail.make(from: path, kind: .png, to: dir.appending("alpha.thumb.png"))
        #expect(size == (256, 171))
        let thumbnail = try PNGImage(path: dir.appending("alpha.thumb.png"))
        #expect(thumbnail.hasAlpha && thumbnail.width == 256 && thumbnail.height == 171)
        #expect(thumbnail.alpha(x: 60, y: 85) == 255 && near(thumbnail.pixel(x: 60, y: 85), (255, 0, 0), within: 5))
        #expect(thumbnail.alpha(x: 200, y: 40) == 0)
        #expect(abs(Int(thumbnail.alpha(x: 200, y: 130)) - 128) <= 3)
        #expect(near(thumbnail.pixel(x: 200, y: 130), (0, 0, 255), within: 8))
    }

    @Test func fineDetailAveragesOutInsteadOfAliasing() throws {
        // A one-pixel checkerboard shrunk 3.9 times: a point-sampling or bilinear filter gives moiré
        // (pixels near black or white); a box filter gives even grey everywhere.
        let png = try dir.write(PNGFixture.rgba(width: 1000, height: 1000) { x, y in
            (x + y) % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255]
        }, "checkers.png")
        try Thumbnail.make(from: png, kind: .png, to: dir.appending("checkers.thumb.png"))
        let thumbnail = try PNGImage(path: dir.appending("checkers.thumb.png"))
        var worst = 0
        for y in stride(from: 1, to: thumbnail.height - 1, by: 3) {
            for x in stride(from: 1, to: thumbnail.width - 1, by: 3) {
                worst = max(worst, abs(Int(thumbnail.pixel(x: x, y: y).green) - 128))
            }
        }
        #expect(worst < 40, "a pixel is \(worst) away from grey")
    }

    @Test func anImageNoLargerThanAThumbnailIsItsOwnThumbnail() throws {
        let base = dir.appending("own")
        // A thumbnail left by an earlier download of other bytes must not survive.
        _ = try dir.write([1, 2, 3], "own.thumb.png")
        let jpeg = try dir.write(JPEGFixture.quadrants(width: 256, height: 100), "own.jpg")
        #expect(try Thumbnail.make(for: jpeg, base: base) == jpeg)
        #expect(!FileManager.default.fileExists(atPath: Thumbnail.path(base: base)))
        let png = try dir.write(PNGFixture.rgba(width: 40, height: 256) { _, _ in [10, 200, 30, 255] }, "own.png")
        #expect(try Thumbnail.make(for: png, base: base) == png)
        // One pixel more: a real thumbnail, 256 px.
        let big = try dir.write(JPEGFixture.quadrants(width: 257, height: 100), "big.jpg")
        #expect(try Thumbnail.make(for: big, base: base) == Thumbnail.path(base: base))
        #expect(try PNGImage(path: Thumbnail.path(base: base)).width == 256)
        #expect(try leftovers().isEmpty)
    }

    @Test func theSizeOfAJPEGIsFoundPastItsMetadataWithoutDecoding() throws {
        let encoded = try JPEGFixture.quadrants(width: 120, height: 70)
        // SOI, then a comment segment, then the rest: the frame header is found by walking the lengths.
        let comment: [UInt8] = [0xFF, 0xFE, 0x01, 0x02] + [UInt8](repeating: 0xFF, count: 256)
        let padded = try dir.write([0xFF, 0xD8] + comment + encoded.dropFirst(2), "padded.jpg")
        #expect(ImageHeader.size(of: padded, kind: .jpg).map { [$0.width, $0.height] } == [120, 70])
        // Noise after a JPEG's magic: no size, so the caller decodes (and fails) as before.
        let noise = try dir.write([0xFF, 0xD8, 0xFF, 0xE0] + (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) },
                              "noise.jpg")
        #expect(ImageHeader.size(of: noise, kind: .jpg) == nil)
        #expect(ImageHeader.size(of: padded, kind: .png) == nil)
    }

    @Test func smallImagesAreNotEnlarged() throws {
        let jpeg = try dir.write(JPEGFixture.quadrants(width: 100, height: 60), "small.jpg")
        #expect(try Thumbnail.make(from: jpeg, kind: .jpg, to: dir.appending("small.thumb.png")) == (100, 60))
        let fromJPEG = try PNGImage(path: dir.appending("small.thumb.png"))
        #expect(fromJPEG.width == 100 && fromJPEG.height == 60)
        #expect(near(fromJPEG.pixel(x: 75, y: 15), (0, 255, 0), within: 40))

        let png = try dir.write(PNGFixture.rgba(width: 256, height: 40) { _, _ in [10, 200, 30, 255] }, "small.png")
        #expect(try Thumbnail.make(from: png, kind: .png, to: dir.appending("small-png.thumb.png")) == (256, 40))
        let fromPNG = try PNGImage(path: dir.appending("small-png.thumb.png"))
        #expect(fromPNG.width == 256 && fromPNG.height == 40)
        #expect(near(fromPNG.pixel(x: 128, y: 20), (10, 200, 30), within: 1))
    }

    /// Found by `bin/fuzz image` (its corpus keeps the input: png-size-overflow): a header of 0xcfcfcfcf ×
    /// 0xcfcfcfcf pixels overflowed the pixel count and crashed the worker, on every try of the resource.
    @Test func aPNGHeaderOfMorePixelsThanAnIntHoldsIsAClearError() throws {
        let header = [UInt8](PNGFixture.rgba(width: 4, height: 4) { _, _ in [0, 0, 0, 255] })
        for (width, height) in [(0xCFCF_CFCF, 0xCFCF_CFCF), (0xFFFF_FFFF, 0xFFFF_FFFF), (0xFFFF_FFFF, 1 << 20)] {
            var bytes = header
            for (offset, value) in [(16, width), (20, height)] {
                for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
            }
            let png = try dir.write(bytes, "huge.png")
            let error = try #require(throws: ConvertError.self) {
                try Thumbnail.make(from: png, kind: .png, to: dir.appending("huge.thumb.png"))
            }
            #expect(error.description == "cannot decode the PNG: too large (\(width)×\(height) pixels)")
            #expect(!FileManager.default.fileExists(atPath: dir.appending("huge.thumb.png")))
        }
    }

    @Test func truncatedJPEGIsAClearError() throws {
        let whole = try JPEGFixture.quadrants(width: 640, height: 480)
        let jpeg = try dir.write(Array(whole.prefix(whole.count / 2)), "cut.jpg")
        let error = try #require(throws: ConvertError.self) {
            try Thumbnail.make(from: jpeg, kind: .jpg, to: dir.appending("cut.thumb.png"))
        }
        #expect(error.description == "cannot decode the JPEG: Premature end of JPEG file")
        #expect(!FileManager.default.fileExists(atPath: dir.appending("cut.thumb.png")))
        #expect(try leftovers().isEmpty)
    }

    @Test func corruptJPEGIsAClearError() throws {
        // Starts like a JPEG, then noise: what a broken server or a wrong Content-Type gives.
        let noise: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let jpeg = try dir.write(noise, "noise.jpg")
        let error = try #require(throws: ConvertError.self) {
            try Thumbnail.make(from: jpeg, kind: .jpg, to: dir.appending("noise.thumb.png"))
        }
        #expect(error.description.hasPrefix("cannot decode the JPEG: "))
        #expect(error.description.count > "cannot decode the JPEG: ".count + 5, "\(error)")
        // A PNG handed over as a JPEG is refused by libjpeg too, not misread.
        let png = try dir.write(PNGFixture.rgba(width: 4, height: 4) { _, _ in [0, 0, 0, 255] }, "wrong.jpg")
        let wrong = try #require(throws: ConvertError.self) {
            try Thumbnail.make(from: png, kind: .jpg, to: dir.appending("wrong.thumb.png"))
        }
        #expect(wrong.description.contains("Not a JPEG file"), "\(wrong)")
    }

    @Test func brokenAndHugePNGsAreClearErrors() throws {
        let whole = PNGFixture.rgba(width: 300, height: 300) { x, _ in [UInt8(x % 256), 0, 0, 255] }
        let cut = try dir.write(Array(whole.prefix(whole.count / 2)), "cut.png")
        let error = try #require(throws: ConvertError.self) {
            try Thumbnail.make(from: cut, kind: .png, to: dir.appending("cut.thumb.png"))
        }
        #expect(error.description.hasPrefix("cannot decode the PNG"), "\(error)")
        // 100,000 × 100,000 pixels would be 40 GB: refused from the header, before any allocation.
        let huge = try dir.write(PNGFixture.header(width: 100_000, height: 100_000), "huge.png")
        let tooLarge = try #require(throws: ConvertError.self) {
            try Thumbnail.make(from: huge, kind: .png, to: dir.appending("huge.thumb.png"))
        }
        #expect(tooLarge.description.contains("too large"), "\(tooLarge)")
    }

    @Test func nonImagesAreRefused() throws {
        let html = try dir.write(Array("<!DOCTYPE html><html><body>not an image</body></html>".utf8), "page")
        let base = dir.appending("0")
        // A thumbnail left by an earlier download of other bytes must not survive.
        try #require(FileManager.default.createFile(atPath: Thumbnail.path(base: base), contents: Data([1, 2, 3])))
        let error = try #require(throws: ConvertError.self) { try Thumbnail.make(for: html, base: base) }
        #expect(error.description == "the image is not a JPG, PNG, GIF or WebP")
        #expect(!FileManager.default.fileExists(atPath: Thumbnail.path(base: base)))

        let pdf = try dir.write(PDFFixture.make(), "doc.pdf")
        let refused = try #require(throws: ConvertError.self) { try Thumbnail.make(for: pdf, base: base) }
        #expect(refused.description.contains("pdf"))
        let missing = try #require(throws: ConvertError.self) {
            try Thumbnail.make(from: dir.appending("nothing.jpg"), kind: .jpg, to: dir.appending("x.png"))
        }
        #expect(missing.description.contains("No such file"), "\(missing)")
    }

    @Test func thumbnailOfARenderedPageIsNamedAfterTheBase() throws {
        let pdf = try dir.write(PDFFixture.make(), "doc.pdf")
        let base = dir.appending("3")
        let made = try DisplayImage.make(for: pdf, kind: .pdf, base: base)
        // Rendered with the page, straight from the PDF.
        #expect(made.thumbnail == base + ".thumb.png")
        let thumb = try #require(made.thumbnail)
        let thumbnail = try PNGImage(path: thumb)
        // Page 1 is 200×100 points, red on its left half: 1600×800 rendered, 256×128 in the grid.
        #expect(thumbnail.width == 256 && thumbnail.height == 128)
        #expect(near(thumbnail.pixel(x: 64, y: 64), (255, 0, 0), within: 10))
        #expect(near(thumbnail.pixel(x: 192, y: 64), (255, 255, 255), within: 10))
        #expect(try leftovers().isEmpty)
    }
}
