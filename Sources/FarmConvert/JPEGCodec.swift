import CFarmJpeg
import Glibc

/// Decodes JPEGs for thumbnails through CFarmJpeg (libjpeg-turbo, its longjmp kept in C).
/// Stateless; any thread may call it.
enum JPEGDecoder {
    /// Refuse to decode more pixels than this (after DCT scaling): 256 MiB of RGB24 at most.
    static let maxPixels = 64 << 20

    /// The JPEG at `path` decoded at the smallest DCT scale (1, 1/2, 1/4, 1/8) whose longest side is
    /// still at least `minSide`, and the size stored in the file (for the exact aspect ratio).
    static func decode(_ path: String, minSide: Int) throws(ConvertError)
        -> (image: ImageSurface, sourceWidth: Int, sourceHeight: Int) {
        var decoded = cfarm_jpeg_image()
        var message = [CChar](repeating: 0, count: 256)
        let status = cfarm_jpeg_decode(path, Int32(clamping: minSide), maxPixels, &decoded, &message, message.count)
        guard status == 0, let pixels = decoded.pixels else {
            throw ConvertError(.undecodable, "cannot decode the JPEG: \(text(message))")
        }
        defer { free(pixels) }
        let image = try ImageSurface(rgb24: pixels, width: Int(decoded.width), height: Int(decoded.height),
                                     stride: Int(decoded.stride))
        return (image, Int(decoded.source_width), Int(decoded.source_height))
    }
}

/// Writes JPEGs through CFarmJpeg: `farm demo` draws its sample photos with it (farm converts no image
/// to JPEG); the fixtures, the chaos runner and the benchmark make their real JPEGs with it too.
/// Stateless; any thread may call it.
public enum JPEGEncoder {
    /// How the bytes of a pixel are laid out.
    public enum Layout: Int, Sendable {
        case gray = 1, rgb = 3
        /// Stored as given with an Adobe marker: pass inverted values (255 = no ink), as Photoshop does.
        case cmyk = 4
    }

    /// Writes `pixels` (rows of `width` pixels of `layout`, no padding) as a JPEG file at `path`.
    public static func write(_ pixels: [UInt8], width: Int, height: Int, layout: Layout, quality: Int = 90,
                             to path: String) throws(ConvertError) {
        guard width > 0, height > 0, pixels.count == width * height * layout.rawValue,
              let w = Int32(exactly: width), let h = Int32(exactly: height), let q = Int32(exactly: quality) else {
            throw ConvertError(.invalidRequest, "\(pixels.count) bytes are not a \(width)×\(height) \(layout) image")
        }
        var message = [CChar](repeating: 0, count: 256)
        let status = cfarm_jpeg_encode(path, pixels, w, h, Int32(layout.rawValue), q, &message, message.count)
        guard status == 0 else { throw ConvertError(.renderFailed, "cannot encode the JPEG: \(text(message))") }
    }
}

/// The NUL-terminated text in a C message buffer (the C shims report errors that way).
func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
