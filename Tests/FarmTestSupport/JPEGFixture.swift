import FarmConvert
import Foundation

/// Real JPEGs for tests, encoded by libjpeg-turbo (through FarmConvert's `JPEGEncoder`): flat colour
/// regions, so a test can tell where each part of the image went after decoding and scaling.
public enum JPEGFixture {
    public typealias RGB = (red: UInt8, green: UInt8, blue: UInt8)

    /// The colours of `quadrants`: top-left, top-right, bottom-left, bottom-right.
    public static let quadrantColours: [RGB] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]

    /// An RGB JPEG of four flat quadrants (see `quadrantColours`).
    public static func quadrants(width: Int, height: Int, quality: Int = 90) throws -> [UInt8] {
        let c = quadrantColours
        let top = row(width) { $0 < width / 2 ? [c[0].red, c[0].green, c[0].blue] : [c[1].red, c[1].green, c[1].blue] }
        let bottom = row(width) { $0 < width / 2 ? [c[2].red, c[2].green, c[2].blue] : [c[3].red, c[3].green, c[3].blue] }
        return try encode(rows(height, top, bottom), width: width, height: height, layout: .rgb, quality: quality)
    }

    /// A grayscale JPEG: black on its left half, white on its right.
    public static func grayHalves(width: Int, height: Int) throws -> [UInt8] {
        let line = row(width) { $0 < width / 2 ? [0] : [255] }
        return try encode(rows(height, line, line), width: width, height: height, layout: .gray, quality: 90)
    }

    /// A CMYK JPEG as Photoshop writes them (Adobe marker, inverted inks): cyan on its left half,
    /// yellow on its right.
    public static func cmykHalves(width: Int, height: Int) throws -> [UInt8] {
        // Inverted: 0 is full ink, 255 none. Cyan = C only; yellow = Y only.
        let line = row(width) { $0 < width / 2 ? [0, 255, 255, 255] : [255, 255, 0, 255] }
        return try encode(rows(height, line, line), width: width, height: height, layout: .cmyk, quality: 90)
    }

    /// The bytes of a JPEG made by `JPEGEncoder` from `pixels`.
    public static func encode(_ pixels: [UInt8], width: Int, height: Int, layout: JPEGEncoder.Layout,
                              quality: Int) throws -> [UInt8] {
        let dir = TemporaryDirectory("farm-jpeg")
        let path = dir.appending("fixture.jpg")
        try JPEGEncoder.write(pixels, width: width, height: height, layout: layout, quality: quality, to: path)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private static func row(_ width: Int, _ pixel: (Int) -> [UInt8]) -> [UInt8] {
        (0..<width).flatMap(pixel)
    }

    /// `height` rows: the top half `top`, the bottom half `bottom`.
    private static func rows(_ height: Int, _ top: [UInt8], _ bottom: [UInt8]) -> [UInt8] {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(height * top.count)
        for y in 0..<height { pixels.append(contentsOf: y < height / 2 ? top : bottom) }
        return pixels
    }
}
