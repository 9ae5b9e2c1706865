import FarmFixtures
import FarmTestSupport
import FarmZip
import Foundation
import Testing
@testable import FarmManifest

@Suite struct ManifestReadTests {
    @Test func aSingleJSONFileIsOneListNamedByItsDisplayName() throws {
        let dir = TemporaryDirectory("manifest-single")
        let path = try ManifestFixtures.writeFile(ManifestFixtures.urls, in: dir, as: "download.tmp")
        let lists = try Manifest.read(path: path, displayName: "https://example.com/lists/Set 7.json")
        #expect(lists == [ManifestList(name: "Set 7.json", resources: [
            ManifestResource(url: "https://example.com/a.jpg"), ManifestResource(url: "https://example.com/b.pdf"),
        ], form: .urls)])
        #expect(try Manifest.read(path: path, displayName: "plain.json").map(\.name) == ["plain.json"])
    }

    @Test func zipOrJSONIsDecidedByTheBytesNotTheName() throws {
        let dir = TemporaryDirectory("manifest-magic")
        let zip = try ManifestFixtures.writeZip([("Set 1.json", ManifestFixtures.urls)], in: dir, as: "looks-like.json")
        #expect(try Manifest.read(path: zip, displayName: "looks-like.json").map(\.name) == ["Set 1.json"])
        let json = try ManifestFixtures.writeFile(ManifestFixtures.urls, in: dir, as: "looks-like.zip")
        #expect(try Manifest.read(path: json, displayName: "looks-like.zip").map(\.resources.count) == [2])
    }

    @Test func aZipOfNestedFoldersGivesOneListPerJSONFileInNaturalOrder() throws {
        let dir = TemporaryDirectory("manifest-nested")
        let path = try ManifestFixtures.writeZip([
            ("JSON files/Set 10.json", #"["https://example.com/10.jpg"]"#),
            ("JSON files/more/deeper/Set 2.json",
             #"{"items": [{"uuid": "u2", "imageUrlString": "https://example.com/2.jpg"}]}"#),
            ("Set 1.JSON", #"[{"url": "https://example.com/1.jpg", "id": "one"}]"#),
            ("JSON files/readme.txt", "not a list"),
            ("JSON files/set 3.json", #"["https://example.com/3.jpg"]"#),
        ], in: dir, directories: ["JSON files/", "JSON files/more/", "JSON files/more/deeper/"])
        let lists = try Manifest.read(path: path, displayName: "/downloads/JSON files updated.zip")
        #expect(lists.map(\.name) == ["Set 1.JSON", "Set 2.json", "set 3.json", "Set 10.json"])
        #expect(lists[0].resources == [ManifestResource(url: "https://example.com/1.jpg", id: "one")])
        #expect(lists[1].resources == [ManifestResource(url: "https://example.com/2.jpg", id: "u2")])
        #expect(lists[3].resources == [ManifestResource(url: "https://example.com/10.jpg")])
    }

    @Test func sameFileNamesInDifferentFoldersAreToldApartByTheirPath() throws {
        let dir = TemporaryDirectory("manifest-dupes")
        let path = try ManifestFixtures.writeZip([
            ("b/Set 1.json", #"["https://example.com/b.jpg"]"#),
            ("a/Set 1.json", #"["https://example.com/a.jpg"]"#),
            ("Set 2.json", #"["https://example.com/2.jpg"]"#),
        ], in: dir)
        let lists = try Manifest.read(path: path, displayName: "manifest.zip")
        #expect(lists.map(\.name) == ["a/Set 1.json", "b/Set 1.json", "Set 2.json"])
        #expect(lists[0].resources.map(\.url) == ["https://example.com/a.jpg"])
    }

    @Test func macOSFoldersAndDotFilesAreSkipped() throws {
        let dir = TemporaryDirectory("manifest-skip")
        let path = try ManifestFixtures.writeZip([
            ("__MACOSX/._Set 1.json", "\u{0}\u{5}binary resource fork"),
            ("__MACOSX/lists/Set 9.json", "not json"),
            ("lists/._Set 1.json", "binary"),
            ("lists/.hidden/Set 8.json", "not json"),
            (".Set 7.json", "not json"),
            ("../Set 6.json", "not json"),
            ("lists/Set 1.json", ManifestFixtures.urls),
        ], in: dir)
        let lists = try Manifest.read(path: path, displayName: "manifest.zip")
        #expect(lists.map(\.name) == ["Set 1.json"])
    }

    @Test func aMalformedListInAZipIsNamedWithItsPosition() throws {
        let dir = TemporaryDirectory("manifest-malformed")
        let path = try ManifestFixtures.writeZip([
            ("Set 1.json", ManifestFixtures.urls),
            ("Set 3.json", "[\n  \"https://example.com/a.jpg\",\n  \"https://example.com/b.jpg\"\n"
                + "  \"https://example.com/c.jpg\"\n]"),
        ], in: dir)
        let error = manifestError { _ = try Manifest.read(path: path, displayName: "manifest.zip") }
        #expect(error?.code == .malformedJSON)
        #expect(error?.description == "Set 3.json: malformed JSON at line 4, column 3 (expected ',' or ']')")
    }

    @Test func emptyAndListlessManifestsAreRefused() throws {
        let dir = TemporaryDirectory("manifest-empty")
        let emptyZip = dir.appending("empty.zip")
        try ZipWriter(path: emptyZip).close()
        let empty = manifestError { _ = try Manifest.read(path: emptyZip, displayName: "empty.zip") }
        #expect(empty?.code == .empty)
        #expect(empty?.description == "empty.zip: empty zip (it holds no file)")

        let noJSON = try ManifestFixtures.writeZip([("readme.txt", "hi"), ("images/a.jpg", "jpg")], in: dir,
                                                   directories: ["lists/"])
        let listless = manifestError { _ = try Manifest.read(path: noJSON, displayName: "manifest.zip") }
        // Its picture makes it a zip of pictures given for a list (issue 66); a readme alone holds no list.
        #expect(listless?.code == .notAList)
        #expect(listless?.description == "manifest.zip: a zip of pictures or documents, not of lists of URLs")

        let emptyFile = try ManifestFixtures.writeFile("", in: dir, as: "blank.json")
        let blank = manifestError { _ = try Manifest.read(path: emptyFile, displayName: "blank.json") }
        #expect(blank?.code == .empty)
        #expect(blank?.description == "blank.json: empty file")

        let whitespace = try ManifestFixtures.writeFile("  \n", in: dir, as: "spaces.json")
        let spaces = manifestError { _ = try Manifest.read(path: whitespace, displayName: "spaces.json") }
        // No `[` or `{` first: a text list (SPEC §15), which has no line of a URL.
        #expect(spaces?.code == .empty)
        #expect(spaces?.description == "spaces.json: holds no URL (only blank lines and # comments)")
        let spacesInZip = try ManifestFixtures.writeZip([("Set 1.json", "  \n")], in: dir, as: "spaces.zip")
        let zippedSpaces = manifestError { _ = try Manifest.read(path: spacesInZip, displayName: "spaces.zip") }
        #expect(zippedSpaces?.description
            == "Set 1.json: malformed JSON at line 2, column 1 (unexpected end of file; expected a value)")

        let emptyListInZip = try ManifestFixtures.writeZip([("Set 1.json", "")], in: dir, as: "hollow.zip")
        let hollow = manifestError { _ = try Manifest.read(path: emptyListInZip, displayName: "hollow.zip") }
        #expect(hollow?.description == "Set 1.json: empty file")
    }

    @Test func aCorruptZipIsRefused() throws {
        let dir = TemporaryDirectory("manifest-corrupt")
        let path = dir.appending("broken.zip")
        try Data([0x50, 0x4B, 3, 4] + Array(repeating: 0x41, count: 200)).write(to: URL(fileURLWithPath: path))
        let error = manifestError { _ = try Manifest.read(path: path, displayName: "broken.zip") }
        #expect(error?.code == .badZip)
        #expect(error?.description == "broken.zip: corrupt zip: not a zip archive, or truncated")
    }

    @Test func aZipBombManifestIsRefusedWithoutExpandingIt() throws {
        let dir = TemporaryDirectory("manifest-bomb")
        let path = dir.appending("bomb.zip")
        let writer = try ZipWriter(path: path)
        try writer.add("Set 1.json", Array(ManifestFixtures.urls.utf8))
        try writer.add("Set 2.json", repeating: 0x20, count: 64 << 20)
        try writer.close()
        let error = manifestError { _ = try Manifest.read(path: path, displayName: "bomb.zip") }
        #expect(error?.code == .badZip)
        #expect(error?.description
            == "bomb.zip: zip bomb: entry Set 2.json expands more than 500 times its compressed size")
    }

    @Test func aMissingFileIsUnreadable() {
        let error = manifestError { _ = try Manifest.read(path: "/nonexistent/farm/m.json", displayName: "m.json") }
        #expect(error?.code == .unreadable)
        #expect(error?.errno == ENOENT)
        #expect(error?.description == "m.json: cannot read /nonexistent/farm/m.json: No such file or directory")
    }

    @Test func namesWithControlCharactersStayOnOneLine() throws {
        let dir = TemporaryDirectory("manifest-oneline")
        let path = try ManifestFixtures.writeZip([("evil\nname.json", "{")], in: dir)
        let error = manifestError { _ = try Manifest.read(path: path, displayName: "manifest.zip") }
        #expect(error?.description.contains("\n") == false)
        #expect(error?.description.hasPrefix("evil?name.json: malformed JSON") == true)
    }
}
