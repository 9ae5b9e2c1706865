/// Writes small PDFs object by object, for the tests' fixtures and the chaos runner's and the benchmark's
/// corpora (farm itself only reads PDFs): objects numbered from 1, a cross-reference table with exact
/// offsets, a trailer whose /Root is object 1. Stateless.
public enum PDFWriter {
    /// The PDF holding `objects` (each the text between `N 0 obj` and `endobj`), with `trailer`
    /// added to the trailer dictionary (e.g. an /Encrypt entry).
    public static func assemble(_ objects: [String], trailer extra: String = "") -> [UInt8] {
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
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R \(extra) >>\nstartxref\n\(xref)\n%%EOF\n"
        return Array(out.utf8)
    }
}
