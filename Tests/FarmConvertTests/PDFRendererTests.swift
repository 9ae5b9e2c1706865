import FarmConvert
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
