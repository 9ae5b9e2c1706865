import FarmFixtures
import FarmTestSupport
import FarmZip
import Foundation
import Testing

/// SPEC §5, the content rows: broken PDFs and ZIPs fail with the reason, a ZIP bomb is stopped before it
/// fills the disk, and no entry name writes outside its folder. Real `farm work` processes against a real
/// origin; every manifest also holds one good resource.
@Suite struct BadContentTests {
    @Test func brokenPDFsFailWithTheReason() throws {
        let h = try BadInputHarness()
        h.origin.serve(path: "/corrupt.pdf", bytes: BadPDFs.corrupt)
        h.origin.serve(path: "/encrypted.pdf", bytes: BadPDFs.encrypted)
        h.origin.serve(path: "/empty.pdf", bytes: BadPDFs.noPages)
        let good = try h.add(["/corrupt.pdf", "/encrypted.pdf", "/empty.pdf"])

        try h.work()

        try h.expectFailed(0, attempts: 1) { $0.hasPrefix("corrupt PDF: ") && $0.count > 13 }
        try h.expectFailed(1, attempts: 1) { $0 == "encrypted PDF" }
        try h.expectFailed(2, attempts: 1) { $0 == "PDF has no pages" }
        for index in 0..<3 {
            #expect(try h.sidecar(index).kind == "pdf")
            // The download is kept for a look; no page image, whole or half-written, was left.
            let outputs = try h.outputs(index)
            #expect(outputs == ["\(index).pdf"], "\(outputs)")
        }
        try h.expectGoodDone(good)
    }

    @Test func brokenZIPsAndZIPsWithoutImagesFailWithTheReason() throws {
        let h = try BadInputHarness()
        let corrupt = [0x50, 0x4B, 0x03, 0x04] + (0..<5000).map { UInt8(truncatingIfNeeded: ($0 &* 40_503) >> 7) }
        h.origin.serve(path: "/corrupt.zip", bytes: corrupt)
        let noImage = h.dir.appending("no-image.zip")
        let writer = try ZipWriter(path: noImage)
        try writer.add("notes.txt", Array("hello".utf8))
        try writer.addDirectory("pictures")
        try writer.addSymlink("pictures/look.png", target: "/etc/passwd")
        try writer.close()
        h.origin.serve(path: "/no-image.zip", bytes: try BadInputHarness.bytes(noImage))
        let fake = h.dir.appending("fake.zip")
        try ZipWriter.write(path: fake, entries: [("fake.png", Array("<html>not a picture</html>".utf8))])
        h.origin.serve(path: "/fake.zip", bytes: try BadInputHarness.bytes(fake))
        let badPDF = h.dir.appending("bad-pdf.zip")
        try ZipWriter.write(path: badPDF, entries: [("doc.pdf", BadPDFs.noPages)])
        h.origin.serve(path: "/bad-pdf.zip", bytes: try BadInputHarness.bytes(badPDF))
        let good = try h.add(["/corrupt.zip", "/no-image.zip", "/fake.zip", "/bad-pdf.zip"])

        try h.work()

        try h.expectFailed(0, attempts: 1) { $0.hasPrefix("corrupt zip") }
        try h.expectFailed(1, attempts: 1) { $0 == "ZIP holds no image or PDF" }
        try h.expectFailed(2, attempts: 1) { $0 == "fake.png in the ZIP is not a JPG, PNG, GIF, WebP or PDF" }
        try h.expectFailed(3, attempts: 1) { $0 == "PDF has no pages" }
        for index in 0..<4 { #expect(try h.sidecar(index).kind == "zip") }
        // The link entry was never made, nor anything that reads through it. (URL records are links whose
        // text is the record, by design: FarmDedup's URLIndex.swift.)
        let spool = try h.spool()
        let links = (FileManager.default.subpaths(atPath: spool.root) ?? []).filter {
            !$0.hasPrefix("urls/") && (try? FileManager.default.destinationOfSymbolicLink(atPath: spool.root + "/" + $0)) != nil
        }
        #expect(links.isEmpty, "\(links)")
        try h.expectGoodDone(good)
    }

    @Test func aZIPBombFailsBeforeTheDiskFills() throws {
        let h = try BadInputHarness()
        let bombSize = 64 << 20
        let bomb = h.dir.appending("bomb.zip")
        let writer = try ZipWriter(path: bomb)
        try writer.add("a.png", repeating: 0, count: bombSize)
        try writer.close()
        let bombBytes = try BadInputHarness.bytes(bomb)
        try #require(bombBytes.count < bombSize / 100, "not a bomb: \(bombBytes.count) bytes")
        h.origin.serve(path: "/bomb.zip", bytes: bombBytes)
        // The other kind of bomb: more entries than anyone would put in a resource.
        let crowd = h.dir.appending("crowd.zip")
        let crowdWriter = try ZipWriter(path: crowd)
        for n in 0...ZipLimits.default.maxEntries { try crowdWriter.add("\(n).png", [0x89, 0x50], method: .store) }
        try crowdWriter.close()
        h.origin.serve(path: "/crowd.zip", bytes: try BadInputHarness.bytes(crowd))
        let good = try h.add(["/bomb.zip", "/crowd.zip"])

        try h.work()

        try h.expectFailed(0, attempts: 1) {
            $0 == "zip bomb: entry a.png expands more than 100 times its compressed size"
        }
        try h.expectFailed(1, attempts: 1) { $0 == "zip bomb: more than \(ZipLimits.default.maxEntries) entries" }
        #expect(BadInputHarness.files(below: try h.spool().files + "/" + h.list + "/1.unzipped").isEmpty)
        let unzipped = try h.spool().files + "/" + h.list + "/0.unzipped"
        let written = BadInputHarness.files(below: unzipped).reduce(0) { $0 + $1.size }
        #expect(written < 1 << 20, "\(written) bytes unpacked from the bomb")
        try h.expectGoodDone(good)
    }

    @Test func entryNamesNeverWriteOutsideTheirFolder() throws {
        let h = try BadInputHarness()
        let png = h.good
        // An absolute name aimed at a folder of this test (not /etc): if it escaped, the test would see it.
        let outside = h.dir.appending("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let hostile = h.dir.appending("hostile.zip")
        try ZipWriter.write(path: hostile, entries: [
            (outside + "/absolute.png", png), ("../../../../parent.png", png), ("a\\..\\..\\back.png", png),
            ("zz/good.png", png),
        ])
        h.origin.serve(path: "/hostile.zip", bytes: try BadInputHarness.bytes(hostile))
        let onlyHostile = h.dir.appending("only-hostile.zip")
        try ZipWriter.write(path: onlyHostile, entries: [(outside + "/absolute.png", png)])
        h.origin.serve(path: "/only-hostile.zip", bytes: try BadInputHarness.bytes(onlyHostile))
        let good = try h.add(["/hostile.zip", "/only-hostile.zip"])

        try h.work()

        let done = try h.expectDone(0, bytes: try BadInputHarness.bytes(hostile))
        #expect(done.image?.hasSuffix("/0.unzipped/zz/good.png") == true, "\(done)")
        try h.expectFailed(1, attempts: 1) { $0.hasPrefix("unsafe entry name") }
        #expect(BadInputHarness.files(below: outside).isEmpty)
        let everything = (FileManager.default.subpaths(atPath: h.dir.path) ?? []).map {
            ($0 as NSString).lastPathComponent
        }
        for name in ["absolute.png", "parent.png", "back.png"] {
            #expect(!everything.contains { $0.hasSuffix(name) }, "\(name) was written")
        }
        try h.expectGoodDone(good)
    }
}
