import FarmSpool
import FarmTestSupport
import FarmZip
import Foundation
import Glibc
import Testing

/// Lists too big to hold in memory are copied to the spool's tmp/, mapped, and read in one pass:
/// every resource must still come out exactly, in order, from a plain JSON file and from a zip, and
/// the copies must not outlive the add.
@Suite struct BigListTests {
    /// About 11 MB of JSON (over the 8 MB above which a list is mapped), with escapes and ids.
    private func bigList(count: Int) -> (json: [UInt8], urls: [String]) {
        let folder = String(repeating: "a-long-folder-name/", count: 7)
        let urls = (0..<count).map { "http://127.0.0.1:1/\(folder)\($0)/photo%20\($0).jpg" }
        var text = #"{"title": "big", "items": ["#
        for (index, url) in urls.enumerated() {
            if index > 0 { text += "," }
            // Every 1000th URL is written with escapes, so it is decoded rather than kept as a span.
            let written = index % 1000 == 0 ? url.replacingOccurrences(of: "/", with: "\\/") : url
            text += #"{"uuid": "u-\#(index)", "imageUrlString": "\#(written)"}"#
        }
        return (Array((text + "]}").utf8), urls)
    }

    @Test(arguments: ["json", "zip"]) func aBigListIsEnqueuedExactly(_ format: String) throws {
        let dir = TemporaryDirectory()
        let (json, urls) = bigList(count: 50_000)
        #expect(json.count > 8 << 20)
        let manifest = dir.appending("Big.\(format)")
        if format == "zip" {
            try ZipWriter.write(path: manifest, entries: [("lists/Big.json", json)])
        } else {
            try Data(json).write(to: URL(fileURLWithPath: manifest))
        }
        let result = try run("farm", ["add", manifest, "--spool", dir.appending("spool")], timeout: 300)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("50000 resource(s)"), "\(result.output)")

        let spool = try Spool(root: dir.appending("spool"))
        let id = try #require(spool.lists.ids().first)
        let records = try #require(spool.lists.resources(ofList: id))
        #expect(records.map(\.url) == urls)
        #expect(records.enumerated().allSatisfy { $0.element.id == "u-\($0.offset)" })
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.tmp).isEmpty)
    }
}
