import FarmSystem
import FarmZip
import FoundationEssentials
import SystemPackage

/// Turns a downloaded file into the image farm displays for it (SPEC §4 `image`):
/// a JPG or PNG is its own image; a GIF's or WebP's first frame is decoded to PNG (SPEC §15); a PDF's page 1
/// is rendered to PNG; a ZIP's first image by name (or, with none, its first PDF, rendered) is extracted.
/// Bytes of another kind have none. Stateless; any thread may call it.
public enum DisplayImage {
    /// The long-running steps, reported so the status can show them.
    public enum Stage: Sendable { case unzipping, rendering }

    /// Limits for what one ZIP resource may expand to.
    public static let zipLimits = ZipLimits.default

    /// What `make` made: the display image, and its thumbnail when it came with it (a rendered page's
    /// is rendered with the page); otherwise `Thumbnail.make` makes one from the image.
    public struct Made: Sendable, Equatable {
        public var image: String
        public var thumbnail: String?
    }

    /// Makes the display image of `file` (of `kind`), writing any new output next to `base`
    /// (e.g. `files/<list>/<index>`), and returns its absolute path.
    public static func make(for file: String, kind: Kind, base: String, maxSide: Int = 1600,
                            stage: (Stage) -> Void = { _ in }) throws(ConvertError) -> Made {
        switch kind {
        case .jpg, .png:
            return Made(image: file)
        case .gif, .webp:
            stage(.rendering)
            return try firstFrame(of: file, kind: kind, base: base, maxSide: maxSide)
        case .pdf:
            stage(.rendering)
            return try render(pdf: file, base: base, maxSide: maxSide)
        case .zip:
            stage(.unzipping)
            return try unzip(file, into: base + ".unzipped", base: base, maxSide: maxSide, stage: stage)
        case .other:
            throw ConvertError(.invalidRequest, "no display image of bytes of another kind: they are kept as they are")
        }
    }

    /// Where the display image of a GIF or WebP whose outputs are at `base` goes.
    public static func framePath(base: String) -> String { base + ".frame1.png" }

    /// Decodes the first frame once and writes from it both the display image (at most `maxSide`) and, when
    /// that is larger than a thumbnail, the thumbnail: each under a temporary name, then renamed into place.
    private static func firstFrame(of file: String, kind: Kind, base: String, maxSide: Int) throws(ConvertError) -> Made {
        let png = framePath(base: base), thumbnail = Thumbnail.path(base: base)
        let image = try FirstFrame.decode(file, kind: kind).fitted(in: maxSide)
        try OutputFile.replace(png, what: "first frame") { temporary throws(ConvertError) in
            try image.writePNG(to: temporary)
        }
        // No larger than a thumbnail: `Thumbnail.make` then gives the image itself, from its header alone.
        guard max(image.width, image.height) > Thumbnail.defaultMaxSide else { return Made(image: png) }
        let small = try image.fitted(in: Thumbnail.defaultMaxSide)
        try OutputFile.replace(thumbnail, what: "thumbnail") { temporary throws(ConvertError) in
            try small.writePNG(to: temporary)
        }
        return Made(image: png, thumbnail: thumbnail)
    }

    /// Renders page 1 and its thumbnail, each into a temporary name, then renamed into place: no
    /// reader sees half a PNG.
    private static func render(pdf: String, base: String, maxSide: Int) throws(ConvertError) -> Made {
        let png = base + ".page1.png", thumbnail = Thumbnail.path(base: base)
        var made = false
        try OutputFile.replace(png, what: "rendered page") { temporary throws(ConvertError) in
            made = try PDFRenderer.renderFirstPage(pdf: pdf, to: temporary, maxSide: maxSide,
                                                   thumbnail: (thumbnail, Thumbnail.defaultMaxSide)).made
        }
        return Made(image: png, thumbnail: made ? thumbnail : nil)
    }

    private static func unzip(_ zip: String, into directory: String, base: String, maxSide: Int,
                              stage: (Stage) -> Void) throws(ConvertError) -> Made {
        let entries: [ZipEntry]
        let reader: ZipReader
        do {
            reader = try ZipReader(path: zip)
            entries = try reader.entries(limits: zipLimits)
        } catch {
            throw ConvertError(.unpackFailed, error.description)
        }
        let candidates = entries.filter { !$0.isDirectory && !$0.isSymlink && !isHidden($0.name) }
            .sorted { NaturalOrder.areInIncreasingOrder($0.name, $1.name) }
        let images = candidates.filter { ["jpg", "jpeg", "png", "gif", "webp"].contains(fileExtension($0.name)) }
        let pdfs = candidates.filter { fileExtension($0.name) == "pdf" }
        guard !images.isEmpty || !pdfs.isEmpty else { throw ConvertError(.unsupportedContent, "ZIP holds no image or PDF") }
        do { try FileSystem.ensureDirectory(directory) } catch {
            throw ConvertError.write("cannot unpack: \(error)", noSpace: error.isNoSpace, else: .unpackFailed)
        }
        var lastError: ConvertError?
        for entry in images + pdfs {
            let path: String
            do {
                path = try reader.extract(entry, to: directory, limits: zipLimits)
            } catch where error.code == .io && error.errno.map({ Errno(rawValue: $0).isNoSpace }) == true {
                throw ConvertError(.noSpace, error.description)  // the next entry would not fit either
            } catch {
                lastError = ConvertError(.unpackFailed, error.description)
                continue  // an unsafe or broken entry: never written; try the next one
            }
            switch sniff(path) {
            case .jpg?, .png?:
                return Made(image: path)
            case let kind? where kind == .gif || kind == .webp:
                stage(.rendering)
                return try firstFrame(of: path, kind: kind, base: base, maxSide: maxSide)
            case .pdf?:
                stage(.rendering)
                return try render(pdf: path, base: base, maxSide: maxSide)
            default:
                lastError = ConvertError(.unsupportedContent, "\(entry.printableName) in the ZIP is not a JPG, PNG, GIF, WebP or PDF")
            }
        }
        throw lastError ?? ConvertError(.unsupportedContent, "ZIP holds no image or PDF")
    }

    /// What the bytes behind an open descriptor are, read at offset 0 (the descriptor's offset stays).
    public static func sniff(descriptor: FileDescriptor) -> Kind? {
        var prefix = [UInt8](repeating: 0, count: Kind.sniffLength)
        let count = prefix.withUnsafeMutableBytes { (try? descriptor.read(at: 0, into: $0)) ?? 0 }
        return count > 0 ? Kind.sniff(prefix.prefix(count)) : nil
    }

    /// The kind of the file at `path`, by its first bytes.
    public static func sniff(_ path: String) -> Kind? {
        guard let prefix = try? FileSystem.readPrefix(path, count: Kind.sniffLength), !prefix.isEmpty else {
            return nil
        }
        return Kind.sniff(prefix[...])
    }

    private static func isHidden(_ name: String) -> Bool {
        name.split(separator: "/").contains { $0 == "__MACOSX" || $0.hasPrefix(".") }
    }

    private static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/") else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
