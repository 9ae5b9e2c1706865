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
        var out = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(out.utf8.count)
            out += "\(i + 1) 0 obj\n\(body)\nendobj\n"
        }
        let xref = out.utf8.count
        out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets {
            let digits = String(offset)
            out += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
        }
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Array(out.utf8)
    }
}
