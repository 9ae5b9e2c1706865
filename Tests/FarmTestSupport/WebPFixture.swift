import CWebp
import Glibc

/// Real WebPs for tests, encoded by libwebp (lossless, so a test can compare pixels exactly).
public enum WebPFixture {
    public struct EncodeError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A lossless WebP of `width` × `height`, the pixel at (x, y) being `pixel(x, y)`: red, green, blue, alpha.
    public static func lossless(width: Int, height: Int,
                                pixel: (_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8, UInt8)) throws -> [UInt8] {
        var rgba = [UInt8]()
        rgba.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (red, green, blue, alpha) = pixel(x, y)
                rgba += [red, green, blue, alpha]
            }
        }
        var output: UnsafeMutablePointer<UInt8>?
        let size = WebPEncodeLosslessRGBA(rgba, Int32(width), Int32(height), Int32(width * 4), &output)
        guard size > 0, let output else { throw EncodeError(description: "libwebp could not encode a \(width)×\(height) image") }
        defer { WebPFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}
