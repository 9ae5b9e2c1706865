import CPoppler

/// A PNG decoded with cairo: to check display images (tests, the chaos runner) and to read pixels.
/// Owns its cairo surface; one thread at a time.
public final class PNGImage {
    private let surface: OpaquePointer

    public let width: Int
    public let height: Int

    /// Decodes the PNG at `path`; throws when it is not a whole, valid PNG.
    public init(path: String) throws(ConvertError) {
        guard let surface = cairo_image_surface_create_from_png(path) else { throw ConvertError("cannot read \(path)") }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw ConvertError("not a valid PNG: \(String(cString: cairo_status_to_string(status)))")
        }
        self.surface = surface
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
    }

    deinit { cairo_surface_destroy(surface) }

    /// The red, green and blue of one pixel (alpha ignored; cairo stores native-endian ARGB32/RGB24).
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside the image")
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        let word = UnsafeRawPointer(data + y * stride + x * 4).loadUnaligned(as: UInt32.self)
        return (UInt8((word >> 16) & 0xFF), UInt8((word >> 8) & 0xFF), UInt8(word & 0xFF))
    }
}
