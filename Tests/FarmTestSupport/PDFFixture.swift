import FarmFixtures

/// Small, valid PDFs made byte by byte, so tests need no PDF tool: page 1 is 200×100 points with
/// its left half filled red; the other pages are blank.
public enum PDFFixture {
    public static func make(pages: Int = 1) -> [UInt8] {
        precondition(pages >= 1)
        var objects: [String] = []
        let pageIDs = (0..<pages).map { 4 + 2 * $0 }
        objects.append("<< /Type /Catalog /Pages 2 0 R >>")
        objects.append("<< /Type /Pages /Kids [\(pageIDs.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages) >>")
        objects.append("<< /Producer (farm tests) >>")
        for n in 0..<pages {
            let content = n == 0 ? "1 0 0 rg 0 0 100 100 re f" : ""
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents \(pageIDs[n] + 1) 0 R >>")
            objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
        }
        return PDFWriter.assemble(objects)
    }
}
