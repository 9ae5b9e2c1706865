import FarmFixtures

/// RGBA PNGs made byte by byte (`StoredPNG`), so tests can have alpha and any size without an image
/// tool. `pixel(x, y)` gives red, green, blue, alpha (not premultiplied).
enum PNGFixture {
    static func rgba(width: Int, height: Int, _ pixel: (Int, Int) -> [UInt8]) -> [UInt8] {
        StoredPNG.make(width: width, height: height, channels: 4) { y in (0..<width).flatMap { pixel($0, y) } }
    }

    /// The signature and IHDR of an 8-bit RGBA PNG of `width` × `height`, and nothing after.
    static func header(width: Int, height: Int) -> [UInt8] {
        StoredPNG.header(width: width, height: height, channels: 4)
    }
}
