import CFarmRenderLoader
import FarmConvert
import FarmSystem
import FoundationEssentials

/// The pictures of the demo, drawn on the spot with the libraries farm has anyway: JPEGs through
/// libjpeg-turbo (FarmConvert's `JPEGEncoder`), PNGs through cairo. The PDFs are not drawn: see `SampleSet`.
enum SamplePictures {
    /// A JPEG of `width`×`height`: diagonal bands in a hue picked by `seed`, plus noise when `grain`
    /// (noise does not compress, so a grainy picture is as heavy as its pixels).
    static func jpeg(width: Int, height: Int, seed: Int, grain: Bool = false) throws -> [UInt8] {
        // Offset once more than SplitMix64 starts: the pictures stay those the demo has always drawn.
        var generator = SplitMix64(seed: UInt64(seed) &+ 0x9E37_79B9_7F4A_7C15)
        let base = (UInt8(truncatingIfNeeded: 60 + seed * 70), UInt8(truncatingIfNeeded: 120 + seed * 40),
                    UInt8(truncatingIfNeeded: 200 - seed * 50))
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let band = UInt8(truncatingIfNeeded: ((x + y) / 24) % 2 == 0 ? 0 : 40)
                let noise = grain ? UInt8(truncatingIfNeeded: generator.next() & 0x3F) : 0
                let i = (y * width + x) * 3
                pixels[i] = base.0 &+ band &+ noise
                pixels[i + 1] = base.1 &+ band &+ noise
                pixels[i + 2] = base.2 &+ band &+ noise
            }
        }
        return try withTemporaryFile { path in
            try JPEGEncoder.write(pixels, width: width, height: height, layout: .rgb, quality: grain ? 95 : 85, to: path)
        }
    }

    /// A PNG of `width`×`height` with a gradient, a disc and `label`.
    static func png(width: Int, height: Int, label: String, hue: Double) throws -> [UInt8] {
        try RenderLibraries.require()
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw SampleError("cannot draw a \(width)×\(height) PNG")
        }
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)
        let gradient = cairo_pattern_create_linear(0, 0, Double(width), Double(height))
        cairo_pattern_add_color_stop_rgb(gradient, 0, hue, 0.3, 1 - hue)
        cairo_pattern_add_color_stop_rgb(gradient, 1, 1 - hue, 0.8, hue)
        cairo_set_source(cr, gradient)
        cairo_paint(cr)
        cairo_pattern_destroy(gradient)
        cairo_set_source_rgba(cr, 1, 1, 1, 0.6)
        cairo_arc(cr, Double(width) / 2, Double(height) / 2, Double(min(width, height)) / 3, 0, 2 * .pi)
        cairo_fill(cr)
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1)
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo_set_font_size(cr, Double(height) / 10)
        cairo_move_to(cr, Double(width) / 12, Double(height) * 0.9)
        cairo_show_text(cr, label)
        cairo_destroy(cr)
        return try withTemporaryFile { path in
            guard cairo_surface_write_to_png(surface, path) == CAIRO_STATUS_SUCCESS else {
                throw SampleError("cannot write a PNG")
            }
        }
    }

    /// Runs `write` on a fresh temporary path and returns what it wrote there.
    static func withTemporaryFile(_ write: (String) throws -> Void) throws -> [UInt8] {
        let path = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/farm-demo-" + Nonce.nextHex()
        defer { try? FileSystem.unlink(path) }
        try write(path)
        return try FileSystem.readFile(path, limit: 1 << 30)
    }
}

struct SampleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
