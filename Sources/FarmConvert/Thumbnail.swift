import FarmSystem

/// Small PNGs of display images for grid views: the longest side at most `maxSide` (never upscaled),
/// the aspect ratio kept, alpha kept. JPEGs are decoded by libjpeg-turbo straight at 1/2 to 1/8 size;
/// PNGs by cairo; GIFs and WebPs (their first frame) by giflib and libwebp; all are scaled and written by cairo. Stateless; any thread may call it.
public enum Thumbnail {
    /// The longest side of a thumbnail, in pixels.
    public static let defaultMaxSide = 256
    /// Refuse PNGs of more pixels than this: cairo decodes them in full (256 MiB at most).
    static let maxPNGPixels = 64 << 20

    /// Where the thumbnail of the resource with outputs at `base` (e.g. `files/<list>/<index>`) goes.
    public static func path(base: String) -> String { base + ".thumb.png" }

    /// Makes the thumbnail of the display image `image` at `path(base:)` and returns that path, or
    /// returns `image` itself when it is no larger than a thumbnail (no decode, no encode, no file:
    /// most of a small image's cost). The image's kind is told by its first bytes. When no thumbnail
    /// can be made, one left there by an earlier download is removed too (it would show other bytes),
    /// and the reason is thrown.
    public static func make(for image: String, base: String, maxSide: Int = defaultMaxSide) throws(ConvertError)
        -> String {
        let thumbnail = path(base: base)
        do throws(ConvertError) {
            guard let header = ImageHeader.read(image) else { throw ConvertError(.unsupportedContent, "the image is not a JPG, PNG, GIF or WebP") }
            if let size = header.size, max(size.width, size.height) <= maxSide {
                try? FileSystem.unlink(thumbnail)
                return image
            }
            try make(from: image, kind: header.kind, to: thumbnail, maxSide: maxSide)
            return thumbnail
        } catch {
            try? FileSystem.unlink(thumbnail)
            throw error
        }
    }

    /// Makes a PNG thumbnail of `image` (a JPG, PNG, GIF or WebP, as `kind` says) at `path`, written under a
    /// temporary name and renamed into place. Returns the thumbnail's size.
    @discardableResult
    public static func make(from image: String, kind: Kind, to path: String, maxSide: Int = defaultMaxSide)
        throws(ConvertError) -> (width: Int, height: Int) {
        guard maxSide > 0 else { throw ConvertError(.invalidRequest, "a thumbnail needs a size of at least 1 pixel") }
        let source: ImageSurface
        let sourceWidth: Int, sourceHeight: Int
        switch kind {
        case .jpg:
            (source, sourceWidth, sourceHeight) = try JPEGDecoder.decode(image, minSide: maxSide)
        case .png:
            try checkPNGSize(image)
            source = try ImageSurface(png: image)
            (sourceWidth, sourceHeight) = (source.width, source.height)
        case .gif, .webp:
            source = try FirstFrame.decode(image, kind: kind)
            (sourceWidth, sourceHeight) = (source.width, source.height)
        case .pdf, .zip, .other:
            throw ConvertError(.unsupportedContent, "no thumbnail of a \(kind.rawValue) file: make one of its display image")
        }
        let size = fit(width: sourceWidth, height: sourceHeight, maxSide: maxSide)
        // A JPEG decoded at reduced size keeps its aspect only to a pixel: size comes from the file's.
        let thumbnail = (source.width, source.height) == size ? source
            : try source.scaled(width: size.width, height: size.height)
        try OutputFile.replace(path, what: "thumbnail") { temporary throws(ConvertError) in
            try thumbnail.writePNG(to: temporary)
        }
        return size
    }

    /// `width` × `height` shrunk so the longest side is at most `maxSide`; never enlarged.
    static func fit(width: Int, height: Int, maxSide: Int) -> (width: Int, height: Int) {
        let longest = max(width, height)
        guard longest > maxSide else { return (width, height) }
        let scale = Double(maxSide) / Double(longest)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// Reads the size in the PNG's header (signature, then IHDR: width, height) before cairo allocates it.
    private static func checkPNGSize(_ path: String) throws(ConvertError) {
        let header: [UInt8]
        do { header = try FileSystem.readPrefix(path, count: 24) } catch {
            throw ConvertError(.undecodable, "cannot open the image: \(error)")
        }
        guard header.count == 24, Kind.sniff(header) == .png, Array(header[12..<16]) == Array("IHDR".utf8) else {
            throw ConvertError(.undecodable, "cannot decode the PNG: no PNG header")
        }
        func bigEndian(_ at: Int) -> Int { header[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        // Each is up to 2^32 - 1 as read: their product may not fit an Int (a hostile header crashed the worker).
        let width = bigEndian(16), height = bigEndian(20)
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPNGPixels else {
            throw ConvertError(.undecodable, "cannot decode the PNG: too large (\(width)×\(height) pixels)")
        }
    }
}
