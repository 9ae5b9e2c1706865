import CGif
import Foundation

/// Real GIFs for tests, encoded by giflib: every frame the whole screen, each pixel a colour or transparent,
/// so a test can tell which frame a decoder showed and whether it kept the transparency.
public enum GIFFixture {
    public typealias RGB = JPEGFixture.RGB

    public struct EncodeError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A GIF89a of `frames` frames of `width` × `height`, the pixel at (x, y) of frame f being
    /// `pixel(f, x, y)` (nil: transparent). At most 255 colours in all; one palette for every frame.
    public static func animated(width: Int, height: Int, frames: Int,
                                pixel: (_ frame: Int, _ x: Int, _ y: Int) -> RGB?) throws -> [UInt8] {
        // Index 0 is the transparent one; the colours follow in the order they are first met.
        var palette: [RGB] = [(0, 0, 0)]
        var indexes = [[GifPixelType]]()
        for frame in 0..<frames {
            var pixels = [GifPixelType]()
            pixels.reserveCapacity(width * height)
            for y in 0..<height {
                for x in 0..<width {
                    guard let colour = pixel(frame, x, y) else { pixels.append(0); continue }
                    if let known = palette.dropFirst().firstIndex(where: { $0 == colour }) {
                        pixels.append(GifPixelType(known))
                    } else {
                        guard palette.count < 256 else { throw EncodeError(description: "more than 255 colours") }
                        palette.append(colour)
                        pixels.append(GifPixelType(palette.count - 1))
                    }
                }
            }
            indexes.append(pixels)
        }
        let dir = TemporaryDirectory("farm-gif")
        let path = dir.appending("fixture.gif")
        try write(path, width: width, height: height, palette: palette, frames: indexes)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private static func write(_ path: String, width: Int, height: Int, palette: [RGB],
                              frames: [[GifPixelType]]) throws {
        var code: Int32 = 0
        guard let gif = EGifOpenFileName(path, false, &code) else { throw failure("open", code) }
        EGifSetGifVersion(gif, true)  // GIF89a: graphics control extensions
        // A color map's size is a power of two, 2 to 256.
        var size: Int32 = 2
        while Int(size) < palette.count { size *= 2 }
        let colours = palette.map { GifColorType(Red: $0.red, Green: $0.green, Blue: $0.blue) }
            + Array(repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: Int(size) - palette.count)
        let map = GifMakeMapObject(size, colours)
        defer { GifFreeMapObject(map) }
        var failed: Int32? = nil
        if EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, map) == GIF_ERROR { failed = gif.pointee.Error }
        for frame in frames where failed == nil {
            var control = GraphicsControlBlock(DisposalMode: DISPOSE_BACKGROUND, UserInputFlag: false, DelayTime: 10,
                                               TransparentColor: 0)
            var extensionBytes = [GifByteType](repeating: 0, count: 4)
            let length = EGifGCBToExtension(&control, &extensionBytes)
            guard EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), extensionBytes) != GIF_ERROR,
                  EGifPutImageDesc(gif, 0, 0, Int32(width), Int32(height), false, nil) != GIF_ERROR else {
                failed = gif.pointee.Error
                break
            }
            var rows = frame
            for y in 0..<height where failed == nil {
                let status = rows.withUnsafeMutableBufferPointer { EGifPutLine(gif, $0.baseAddress! + y * width, Int32(width)) }
                if status == GIF_ERROR { failed = gif.pointee.Error }
            }
        }
        guard EGifCloseFile(gif, &code) != GIF_ERROR, failed == nil else { throw failure("write", failed ?? code) }
    }

    private static func failure(_ what: String, _ code: Int32) -> EncodeError {
        EncodeError(description: "cannot \(what) the GIF: " + (GifErrorString(code).map { String(cString: $0) } ?? "error \(code)"))
    }
}
