import CFarmPng
import CFarmRenderLoader
import FarmSystem
import Glibc
import SystemPackage

/// An image in memory as a cairo image surface: RGB24, or ARGB32 (premultiplied) when it has alpha, or
/// A8 holding grey levels (only to be written as a grey PNG).
/// The one place where FarmConvert touches cairo's pixels; `package` for FarmFixtures' `PNGImage`, which
/// reads and writes PNGs with it for the tests and the benchmark. Owns its surface; one thread at a time.
public final class ImageSurface {
    let surface: OpaquePointer
    public let width: Int
    public let height: Int

    /// Takes ownership of `surface` when its status is success; destroys it and throws otherwise.
    private init(taking surface: OpaquePointer?, what: String) throws(ConvertError) {
        guard let surface else { throw ConvertError(.renderFailed, "cannot \(what)") }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw ConvertError(.renderFailed, "cannot \(what): \(String(cString: cairo_status_to_string(status)))")
        }
        self.surface = surface
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
    }

    /// A new surface, transparent black (ARGB32) or black (RGB24).
    convenience init(width: Int, height: Int, alpha: Bool) throws(ConvertError) {
        try self.init(width: width, height: height, format: alpha ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24)
    }

    private convenience init(width: Int, height: Int, format: cairo_format_t) throws(ConvertError) {
        guard width > 0, height > 0, let w = Int32(exactly: width), let h = Int32(exactly: height) else {
            throw ConvertError(.renderFailed, "cannot allocate a \(width)×\(height) image")
        }
        try RenderLibraries.require()
        try self.init(taking: cairo_image_surface_create(format, w, h), what: "allocate a \(width)×\(height) image")
    }

    /// Decodes the PNG at `path` with cairo (which keeps libpng's longjmp inside itself).
    public convenience init(png path: String) throws(ConvertError) {
        try RenderLibraries.require()
        try self.init(taking: cairo_image_surface_create_from_png(path), what: "decode the PNG")
    }

    /// A copy of `rows` (RGB24 words, `stride` bytes a row) of `width` × `height` pixels.
    convenience init(rgb24 rows: UnsafeRawPointer, width: Int, height: Int, stride: Int) throws(ConvertError) {
        try self.init(width: width, height: height, alpha: false)
        guard let data = cairo_image_surface_get_data(surface) else {
            throw ConvertError(.renderFailed, "cannot reach the pixels of a \(width)×\(height) image")
        }
        let ownStride = Int(cairo_image_surface_get_stride(surface))
        for y in 0..<height {
            (data + y * ownStride).update(from: (rows + y * stride).assumingMemoryBound(to: UInt8.self),
                                          count: width * 4)
        }
        cairo_surface_mark_dirty(surface)
    }

    /// `width` × `height` pixels of 4 bytes (red, green, blue, alpha; not premultiplied; rows not padded), as
    /// GIF and WebP frames are decoded: RGB24 when every pixel is opaque (written by the fast PNG writer),
    /// else ARGB32, premultiplied as cairo keeps it.
    convenience init(rgba pixels: UnsafePointer<UInt8>, width: Int, height: Int) throws(ConvertError) {
        let opaque = (0..<width * height).allSatisfy { pixels[$0 * 4 + 3] == 255 }
        try self.init(width: width, height: height, alpha: !opaque)
        guard let data = cairo_image_surface_get_data(surface) else {
            throw ConvertError(.renderFailed, "cannot reach the pixels of a \(width)×\(height) image")
        }
        let ownStride = Int(cairo_image_surface_get_stride(surface))
        for y in 0..<height {
            let from = pixels + y * width * 4
            let row = UnsafeMutableRawPointer(data + y * ownStride)
            for x in 0..<width {
                let pixel = from + x * 4
                let alpha = UInt32(pixel[3])
                // cairo's words: 0xAARRGGBB premultiplied (rounded), or 0x00RRGGBB, in native byte order.
                func channel(_ value: UInt8) -> UInt32 { opaque ? UInt32(value) : (UInt32(value) * alpha + 127) / 255 }
                let word = (opaque ? 0 : alpha) << 24 | channel(pixel[0]) << 16 | channel(pixel[1]) << 8 | channel(pixel[2])
                row.storeBytes(of: word, toByteOffset: x * 4, as: UInt32.self)
            }
        }
        cairo_surface_mark_dirty(surface)
    }

    deinit { cairo_surface_destroy(surface) }

    public var hasAlpha: Bool { cairo_image_surface_get_format(surface) == CAIRO_FORMAT_ARGB32 }

    /// This image resampled to `width` × `height` with cairo's GOOD filter (a box filter when
    /// shrinking, so fine detail averages out instead of aliasing). Edges are padded, not faded.
    func scaled(width: Int, height: Int) throws(ConvertError) -> ImageSurface {
        let target = try ImageSurface(width: width, height: height, alpha: hasAlpha)
        guard let cr = cairo_create(target.surface) else { throw ConvertError(.renderFailed, "cannot draw the scaled image") }
        defer { cairo_destroy(cr) }
        cairo_scale(cr, Double(width) / Double(self.width), Double(height) / Double(self.height))
        cairo_set_source_surface(cr, surface, 0, 0)
        let pattern = cairo_get_source(cr)
        cairo_pattern_set_filter(pattern, CAIRO_FILTER_GOOD)
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_paint(cr)
        let status = cairo_status(cr)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw ConvertError(.renderFailed, "cannot scale the image: \(String(cString: cairo_status_to_string(status)))")
        }
        cairo_surface_flush(target.surface)
        return target
    }

    /// This image shrunk so its longest side is at most `maxSide` (the aspect kept), or itself when it fits.
    func fitted(in maxSide: Int) throws(ConvertError) -> ImageSurface {
        let size = Thumbnail.fit(width: width, height: height, maxSide: maxSide)
        return (width, height) == size ? self : try scaled(width: size.width, height: size.height)
    }

    /// An 8-bit grey copy (cairo's A8, which it writes as a grey PNG) when every pixel of this RGB24
    /// image is grey, else nil. Rendered text pages are: their PNG is then a third of the bytes to
    /// compress, and encodes about 2.5 times faster (cairo's PNG writer has no compression knob).
    public func grayscaleCopy() throws(ConvertError) -> ImageSurface? {
        guard cairo_image_surface_get_format(surface) == CAIRO_FORMAT_RGB24 else { return nil }
        let gray = try ImageSurface(width: width, height: height, format: CAIRO_FORMAT_A8)
        cairo_surface_flush(surface)
        guard let source = cairo_image_surface_get_data(surface), let target = cairo_image_surface_get_data(gray.surface)
        else { return nil }
        let sourceStride = Int(cairo_image_surface_get_stride(surface))
        let targetStride = Int(cairo_image_surface_get_stride(gray.surface))
        for y in 0..<height {
            let row = UnsafeRawPointer(source + y * sourceStride)
            let out = target + y * targetStride
            for x in 0..<width {
                let word = row.load(fromByteOffset: x * 4, as: UInt32.self)
                let blue = UInt8(truncatingIfNeeded: word)
                guard word & 0xFF_FFFF == UInt32(blue) &* 0x01_0101 else { return nil }  // red == green == blue
                out[x] = blue
            }
        }
        cairo_surface_mark_dirty(gray.surface)
        return gray
    }

    /// Writes this image as a PNG at `path` (grey, RGB, or RGBA when it has alpha). On failure `path`
    /// is removed. Opaque images go through CFarmPng at zlib's fastest level, several times faster than
    /// cairo's writer for files about a third bigger; images with alpha (rare: PNG sources) through cairo's.
    public func writePNG(to path: String) throws(ConvertError) {
        let format = cairo_image_surface_get_format(surface)
        if format == CAIRO_FORMAT_RGB24 || format == CAIRO_FORMAT_A8 {
            cairo_surface_flush(surface)
            guard let data = cairo_image_surface_get_data(surface) else {
                throw ConvertError(.renderFailed, "cannot write the PNG: the image has no pixels")
            }
            var error = [CChar](repeating: 0, count: 256)
            let layout = Int32(format == CAIRO_FORMAT_A8 ? CFARM_PNG_GRAY8 : CFARM_PNG_RGB24)
            guard cfarm_png_write(path, data, Int32(width), Int32(height), cairo_image_surface_get_stride(surface),
                                  layout, &error, error.count) == 0 else {
                throw ConvertError.write("cannot write the PNG: " + text(error), noSpace: Errno(rawValue: errno).isNoSpace)
            }
            return
        }
        let status = cairo_surface_write_to_png(surface, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            // cairo says only "error while writing"; its stdio left the reason in errno.
            let noSpace = status == CAIRO_STATUS_WRITE_ERROR && Errno(rawValue: errno).isNoSpace
            try? FileSystem.unlink(path)
            throw ConvertError.write("cannot write the PNG: \(String(cString: cairo_status_to_string(status)))",
                                     noSpace: noSpace)
        }
    }

    /// The pixel at (x, y), un-premultiplied: red, green, blue and alpha (255 for RGB24 and grey A8).
    public func rgba(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside the \(width)×\(height) image")
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return (0, 0, 0, 0) }
        let stride = Int(cairo_image_surface_get_stride(surface))
        if cairo_image_surface_get_format(surface) == CAIRO_FORMAT_A8 {
            let value = data[y * stride + x]
            return (value, value, value, 255)
        }
        let word = UnsafeRawPointer(data + y * stride + x * 4).loadUnaligned(as: UInt32.self)
        let alpha = hasAlpha ? UInt32(word >> 24) : 255
        func channel(_ shift: UInt32) -> UInt8 {
            let value = (word >> shift) & 0xFF
            guard alpha > 0 else { return 0 }
            return UInt8(min(255, (value * 255 + alpha / 2) / alpha))
        }
        return (channel(16), channel(8), channel(0), UInt8(alpha))
    }
}
