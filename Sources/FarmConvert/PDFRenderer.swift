import CFarmRenderLoader

/// Renders page 1 of a PDF to a PNG with poppler-glib and cairo.
///
/// Stateless; any thread may call it, but poppler documents are not shared between calls.
public enum PDFRenderer {
    /// Renders page 1 of the PDF at `pdf` (an absolute path) into a new PNG at `png`, scaled so its
    /// longest side is `maxSide` pixels, on white (a page's background is transparent).
    /// Returns the image's size. Corrupt, encrypted and page-less PDFs throw with the reason.
    @discardableResult
    public static func renderFirstPage(pdf: String, to png: String, maxSide: Int = 1600) throws(ConvertError)
        -> (width: Int, height: Int) {
        try renderFirstPage(pdf: pdf, to: png, maxSide: maxSide, thumbnail: nil).size
    }

    /// The same, and with `thumbnail` (a path and a longest side) the page rendered again at that
    /// size, under a temporary name then renamed there: far cheaper than decoding the big PNG and
    /// resampling it (13 ms for a 1236×1600 page). `made` is false when the page is no larger than a
    /// thumbnail or the thumbnail could not be written; the page itself is done either way.
    static func renderFirstPage(pdf: String, to png: String, maxSide: Int, thumbnail: (path: String, maxSide: Int)?)
        throws(ConvertError) -> (size: (width: Int, height: Int), made: Bool) {
        try RenderLibraries.require()
        var error: UnsafeMutablePointer<GError>?
        guard let uri = g_filename_to_uri(pdf, nil, &error) else {
            throw ConvertError(.undecodable, "cannot open PDF: \(take(&error))")
        }
        defer { g_free(uri) }
        guard let document = poppler_document_new_from_file(uri, nil, &error) else {
            let encrypted = error.map { $0.pointee.code == Int32(POPPLER_ERROR_ENCRYPTED.rawValue) } ?? false
            let reason = take(&error)
            throw ConvertError(.undecodable, encrypted ? "encrypted PDF" : "corrupt PDF: \(reason)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(document)) }
        guard poppler_document_get_n_pages(document) > 0, let page = poppler_document_get_page(document, 0) else {
            throw ConvertError(.undecodable, "PDF has no pages")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(page)) }

        var pageWidth = 0.0, pageHeight = 0.0
        poppler_page_get_size(page, &pageWidth, &pageHeight)
        guard pageWidth > 0, pageHeight > 0 else { throw ConvertError(.undecodable, "PDF page 1 has no size") }
        let size = try draw(page, width: pageWidth, height: pageHeight, maxSide: maxSide, to: png)
        guard let thumbnail, max(size.width, size.height) > thumbnail.maxSide else { return (size, false) }
        do {
            try OutputFile.replace(thumbnail.path, what: "thumbnail") { temporary throws(ConvertError) in
                _ = try draw(page, width: pageWidth, height: pageHeight, maxSide: thumbnail.maxSide, to: temporary)
            }
            return (size, true)
        } catch {
            return (size, false)
        }
    }

    /// Draws `page` (of `width` × `height` points) scaled to `maxSide` pixels on white and writes it.
    private static func draw(_ page: OpaquePointer, width pageWidth: Double, height pageHeight: Double, maxSide: Int,
                             to png: String) throws(ConvertError) -> (width: Int, height: Int) {
        let scale = Double(maxSide) / max(pageWidth, pageHeight)
        let width = max(1, Int((pageWidth * scale).rounded()))
        let height = max(1, Int((pageHeight * scale).rounded()))
        let image = try ImageSurface(width: width, height: height, alpha: false)
        guard let cr = cairo_create(image.surface) else { throw ConvertError(.renderFailed, "cannot draw the page") }
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        cairo_scale(cr, scale, scale)
        poppler_page_render(page, cr)
        cairo_destroy(cr)
        // Encoding dominates (rendering a page takes a few ms): a grey page is written as a grey PNG.
        try (image.grayscaleCopy() ?? image).writePNG(to: png)
        return (width, height)
    }

    /// The message of a GError, freeing it.
    private static func take(_ error: inout UnsafeMutablePointer<GError>?) -> String {
        guard let pointer = error else { return "unknown error" }
        defer {
            g_error_free(pointer)
            error = nil
        }
        return String(cString: pointer.pointee.message)
    }
}
