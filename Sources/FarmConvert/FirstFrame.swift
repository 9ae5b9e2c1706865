import CFarmFrame
import FarmSystem
import Glibc
import SystemPackage

/// Decodes the first frame of a GIF (through CFarmFrame, over giflib) or of a WebP (CFarmFrame, over libwebp),
/// still or animated, into an image surface: what their display images and thumbnails are made of.
/// Stateless; any thread may call it.
enum FirstFrame {
    /// Refuse frames of more pixels than this, before they are allocated: 256 MiB of RGBA at most.
    static let maxPixels = 64 << 20

    /// The first frame of the file at `path`, a `kind` (a GIF or a WebP). The file is mapped, not read: a
    /// GIF's first frame is often a small part of it. Only the spool's own stored downloads are decoded,
    /// and they are replaced by a rename, never shortened, so the mapping never outlives its bytes.
    static func decode(_ path: String, kind: Kind) throws(ConvertError) -> ImageSurface {
        let mapped: MappedFile
        do {
            let fd = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec])
            defer { fd.closeQuietly() }
            let size = try fd.seekToEnd()
            guard size > 0 else { throw ConvertError(.undecodable, "cannot decode the \(kind.name): the file is empty") }
            mapped = try MappedFile(fd, count: size)
        } catch let error as ConvertError {
            throw error
        } catch {
            throw ConvertError(.undecodable, "cannot open the image: \(error)")
        }
        // Kept alive through the decode: its deinit unmaps the bytes.
        return try withExtendedLifetime(mapped) { () throws(ConvertError) -> ImageSurface in
            try decode(UnsafeRawBufferPointer(mapped.bytes), kind: kind)
        }
    }

    /// The first frame of the `kind` (a GIF or a WebP) in `bytes`.
    static func decode(_ bytes: UnsafeRawBufferPointer, kind: Kind) throws(ConvertError) -> ImageSurface {
        guard let start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
            throw ConvertError(.undecodable, "cannot decode the \(kind.name): no bytes")
        }
        var message = [CChar](repeating: 0, count: 256)
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        let status: Int32
        switch kind {
        case .gif:
            var frame = cfarm_frame()
            status = cfarm_gif_decode(start, bytes.count, maxPixels, &frame, &message, message.count)
            (pixels, width, height) = (frame.pixels, frame.width, frame.height)
        case .webp:
            var frame = cfarm_frame()
            status = cfarm_webp_decode(start, bytes.count, maxPixels, &frame, &message, message.count)
            (pixels, width, height) = (frame.pixels, frame.width, frame.height)
        default:
            throw ConvertError(.invalidRequest, "no frame of a \(kind.rawValue) file to decode")
        }
        guard status == 0, let pixels else { throw ConvertError(.undecodable, text(message)) }
        defer { free(pixels) }
        return try ImageSurface(rgba: pixels, width: Int(width), height: Int(height))
    }
}

extension Kind {
    /// How an error names a file of this kind.
    var name: String { self == .webp ? "WebP" : rawValue.uppercased() }
}
