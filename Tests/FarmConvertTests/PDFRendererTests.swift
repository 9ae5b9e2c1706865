@testable import FarmConvert
import FarmFixtures
import FarmTestSupport
import Foundation
import Testing

@Suite struct PDFRendererTests {
    private func write(_ bytes: [UInt8], _ path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func rendersPageOneOnWhiteWithTheLongestSideBounded() throws {
        let dir = TemporaryDirectory()
        try write(PDFFixture.make(pages: 3), dir.appending("doc.pdf"))
        let size = try PDFRenderer.renderFirstPage(pdf: dir.appending("doc.pdf"), to: dir.appending("page1.png"),
                                                   maxSide: 400)
        #expect(size.width == 400 && size.height == 200)
        let image = try PNGImage(path: dir.appending("page1.png"))
        #expect(image.width == 400 && image.height == 200)
        // Page 1 is red on its left half, white (not transparent black) on its right.
        let left = image.pixel(x: 100, y: 100), right = image.pixel(x: 300, y: 100)
        #expect(left.red > 200 && left.green < 50 && left.blue < 50)
        #expect(right.red > 200 && right.green > 200 && right.blue > 200)
    }

    @Test func refusesCorruptAndTruncatedPDFsWithAReason() throws {
        let dir = TemporaryDirectory()
        try write(Array("%PDF-1.4\nthis is not a pdf at all\n".utf8), dir.appending("bad.pdf"))
        let error = try #require(throws: ConvertError.self) {
            try PDFRenderer.renderFirstPage(pdf: dir.appending("bad.pdf"), to: dir.appending("bad.png"))
        }
        #expect(error.description.contains("PDF"))
        #expect(!FileManager.default.fileExists(atPath: dir.appending("bad.png")))
    }
}

/// Grey images are written as 8-bit grey PNGs (a third of the bytes to encode), colour ones as RGB.
@Suite struct GrayPNGTests {
    /// The colour type in a PNG's IHDR: 0 grey, 2 RGB, 6 RGBA.
    private func colourType(_ path: String) throws -> UInt8 {
        try Data(contentsOf: URL(fileURLWithPath: path))[25]
    }

    @Test func greyImagesBecomeGreyPNGsAndColourOnesDoNot() throws {
        let dir = TemporaryDirectory()
        try Data(JPEGFixture.grayHalves(width: 64, height: 32)).write(to: URL(fileURLWithPath: dir.appending("g.jpg")))
        let grey = try JPEGDecoder.decode(dir.appending("g.jpg"), minSide: 0).image
        let copy = try #require(try grey.grayscaleCopy())
        try copy.writePNG(to: dir.appending("g.png"))
        #expect(try colourType(dir.appending("g.png")) == 0)
        let back = try PNGImage(path: dir.appending("g.png"))
        #expect(back.width == 64 && back.height == 32)
        for (x, y) in [(3, 3), (40, 20), (63, 31)] {
            let original = grey.rgba(x: x, y: y), decoded = back.pixel(x: x, y: y)
            #expect(decoded.red == original.red && decoded.green == original.red && decoded.blue == original.red)
        }

        // A page or a photo with colour in it stays RGB.
        try Data(PDFFixture.make()).write(to: URL(fileURLWithPath: dir.appending("red.pdf")))
        try PDFRenderer.renderFirstPage(pdf: dir.appending("red.pdf"), to: dir.appending("red.png"), maxSide: 100)
        #expect(try colourType(dir.appending("red.png")) == 2)
        try Data(JPEGFixture.quadrants(width: 64, height: 32)).write(to: URL(fileURLWithPath: dir.appending("c.jpg")))
        #expect(try JPEGDecoder.decode(dir.appending("c.jpg"), minSide: 0).image.grayscaleCopy() == nil)
    }
}
