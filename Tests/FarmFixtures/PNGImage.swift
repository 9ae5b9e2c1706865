import FarmConvert

/// A PNG decoded with cairo, through FarmConvert's own image code: to check display images and thumbnails
/// (tests, the chaos runner) and to time PNG encoding alone (the benchmark). Owns its pixels; one thread
/// at a time.
public final class PNGImage {
    private let image: ImageSurface

    public var width: Int { image.width }
    public var height: Int { image.height }
    /// Whether the PNG has an alpha channel (cairo then holds it as ARGB32).
    public var hasAlpha: Bool { image.hasAlpha }

    /// Decodes the PNG at `path`; throws when it is not a whole, valid PNG.
    public init(path: String) throws(ConvertError) {
        image = try ImageSurface(png: path)
    }

    /// The red, green and blue of one pixel (un-premultiplied; alpha ignored).
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let rgba = image.rgba(x: x, y: y)
        return (rgba.red, rgba.green, rgba.blue)
    }

    /// The opacity of one pixel: 0 transparent, 255 opaque (always 255 without an alpha channel).
    public func alpha(x: Int, y: Int) -> UInt8 {
        image.rgba(x: x, y: y).alpha
    }
}

extension PNGImage {
    /// Writes these pixels as a PNG at `path` (in place, not atomically), as a grey PNG when every
    /// pixel is grey and `grayWhenPossible` (as PDFRenderer does): to time PNG encoding alone.
    public func write(to path: String, grayWhenPossible: Bool = true) throws(ConvertError) {
        try ((grayWhenPossible ? image.grayscaleCopy() : nil) ?? image).writePNG(to: path)
    }
}
