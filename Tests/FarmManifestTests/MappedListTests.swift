import FarmTestSupport
import Foundation
import Testing
@testable import FarmManifest

/// A list bigger than `ManifestText.mapAbove` read with a scratch folder: copied there (or expanded from
/// its zip), mapped through FarmSystem's `ScratchFile` and `MappedFile`, and read as the same list as in
/// memory; the copy has no name left behind, and a scratch folder that cannot take it is said so.
@Suite struct MappedListTests {
    /// A JSON array of URLs just over the size lists are mapped above.
    static func bigList() -> String {
        var urls: [String] = []
        var size = 0
        while size <= ManifestText.mapAbove + 4096 {
            let url = "https://example.com/pictures/\(urls.count)/" + String(repeating: "x", count: 60) + ".jpg"
            size += url.utf8.count + 4
            urls.append("\"" + url + "\"")
        }
        return "[" + urls.joined(separator: ", ") + "]"
    }

    @Test func aBigListIsMappedFromAScratchCopyAndReadsAsInMemory() throws {
        let dir = TemporaryDirectory("manifest-mapped")
        let scratch = dir.appending("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let text = Self.bigList()
        let json = try ManifestFixtures.writeFile(text, in: dir, as: "big.json")
        let zip = try ManifestFixtures.writeZip([("Big.json", text)], in: dir)
        let inMemory = try Manifest.read(path: json, displayName: "big.json")
        let mapped = try Manifest.read(path: json, displayName: "big.json", scratch: scratch)
        #expect(mapped == inMemory)
        #expect(mapped.first?.resources.count ?? 0 > 50_000)
        let unzipped = try Manifest.read(path: zip, displayName: "manifest.zip", scratch: scratch)
        #expect(unzipped.first?.resources.elementsEqual(inMemory[0].resources) == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)

        let none = dir.appending("none")
        let refused = manifestError { _ = try Manifest.read(path: json, displayName: "big.json", scratch: none) }
        #expect(refused?.code == .unreadable)
        #expect(refused?.errno == ENOENT)
        #expect(refused?.description == "big.json: cannot spill it to \(none): No such file or directory")
    }
}
