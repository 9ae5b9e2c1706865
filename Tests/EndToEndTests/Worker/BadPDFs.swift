import FarmFixtures

/// Hostile PDFs made byte by byte, like `PDFFixture`: each one starts with `%PDF-`, so farm sees a PDF
/// and must fail at rendering with the reason.
enum BadPDFs {
    /// The header, then garbage: no objects, no cross-reference table, nothing to rebuild from.
    static let corrupt: [UInt8] = Array("%PDF-1.4\n".utf8) + (0..<4000).map {
        UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13)
    }

    /// A well-formed page tree that holds no page.
    static let noPages = PDFWriter.assemble([
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [] /Count 0 >>",
    ], trailer: "")

    /// A one-page PDF under the standard security handler (RC4, revision 2) with a user password that is
    /// not empty: its /U does not match the empty password, so no reader opens it without asking.
    static let encrypted = PDFWriter.assemble([
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] >>",
        "<< /Filter /Standard /V 1 /R 2 /Length 40 /P -4 "
            + "/O <\(String(repeating: "5a", count: 32))> /U <\(String(repeating: "c3", count: 32))> >>",
    ], trailer: "/Encrypt 4 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]")
}
