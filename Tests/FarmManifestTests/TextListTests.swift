import FarmJSON
import FarmTestSupport
import Testing
@testable import FarmManifest

/// Text lists (SPEC §15): one URL a line, as `wget -i` and `aria2c -i` read them.
@Suite struct TextListTests {
    private static let digest = String(repeating: "ab", count: 32)

    private func text(_ text: String, name: String = "urls.txt") throws -> ManifestList {
        try Manifest.parseList(contents: Array(text.utf8), name: name)
    }

    @Test func commentsAndBlankLinesAreSkipped() throws {
        let list = try text("""
            # what gallery-dl -g printed
            https://example.com/a.jpg

               \t
            #https://example.com/commented.jpg
            HTTPS://example.com/b.png?size=large#top
            http://127.0.0.1:8080/c.pdf
            """)
        #expect(list.name == "urls.txt")
        #expect(list.form == .urls)
        #expect(list.resources.map(\.url) == [
            "https://example.com/a.jpg", "HTTPS://example.com/b.png?size=large#top", "http://127.0.0.1:8080/c.pdf",
        ])
        #expect(list.resources.allSatisfy { $0.id == nil && $0.sha256 == nil && $0.out == nil && $0.mirrors.isEmpty })
    }

    @Test func windowsLineEndsAByteOrderMarkAndTrailingSpacesAreNotPartOfTheURL() throws {
        let list = try text("\u{FEFF}https://example.com/a.jpg  \r\nhttps://example.com/b.jpg\r\n\r\n")
        #expect(list.resources.map(\.url) == ["https://example.com/a.jpg", "https://example.com/b.jpg"])
    }

    @Test func urlsSeparatedByTABAreOneResourceWithMirrors() throws {
        let list = try text("https://a.example/x.iso\thttps://b.example/x.iso\t\thttps://c.example/x.iso\t\n"
            + "https://a.example/y.iso\n")
        #expect(list.form == .objects)
        #expect(Array(list.resources) == [
            ManifestResource(url: "https://a.example/x.iso", mirrors: ["https://b.example/x.iso", "https://c.example/x.iso"]),
            ManifestResource(url: "https://a.example/y.iso"),
        ])
    }

    @Test func indentedOptionLinesGiveTheURLAboveThemItsNameAndChecksum() throws {
        let list = try text("""
            https://a.example/download?id=7	https://b.example/7.iso
              out=ubuntu.iso
            # a comment or a blank line between a URL and its options does not part them

            	sha256 = \(Self.digest.uppercased())
            https://a.example/plain.jpg
                out=plain copy.jpg
            """)
        #expect(Array(list.resources) == [
            ManifestResource(url: "https://a.example/download?id=7", sha256: Self.digest,
                             mirrors: ["https://b.example/7.iso"], out: "ubuntu.iso"),
            ManifestResource(url: "https://a.example/plain.jpg", out: "plain copy.jpg"),
        ])
        #expect(list.form == .objects)
    }

    @Test func aTextListIsTheSameResourcesAsTheObjectsThatExportWritesForIt() throws {
        let list = try text("https://a.example/1.iso\thttps://b.example/1.iso\n  out=one.iso\n  sha256=\(Self.digest)\n")
        let written = list.form.document(mirrored: list.resources.map { ($0.url, "one", $0.sha256, $0.mirrors, $0.out) })
        let again = try Manifest.parseList(json: JSON.encode(written), name: "urls.txt")
        #expect(Array(again.resources) == [ManifestResource(url: "https://a.example/1.iso", id: "one", sha256: Self.digest,
                                                            mirrors: ["https://b.example/1.iso"], out: "one.iso")])
    }

    @Test(arguments: [
        ("https://a/1.jpg\nftp://a/2.jpg\n", 2, #"line 2: not an http(s) URL: "ftp://a/2.jpg""#),
        ("https://a/1.jpg\n\n# c\nnot a url\n", 4, #"line 4: not an http(s) URL: "not a url""#),
        ("https://\n", 1, #"line 1: not an http(s) URL: "https://""#),
        ("https:/a/x\n", 1, #"line 1: not an http(s) URL: "https:/a/x""#),
        ("https://a/1.jpg https://b/1.jpg\n", 1,
         #"line 1: a URL holds no space (mirrors are separated by a TAB): "https://a/1.jpg https://b/1.jpg""#),
        ("https://a/1.jpg\thttp//b/1.jpg\n", 1, #"line 1: not an http(s) URL: "http//b/1.jpg""#),
        ("  out=x.jpg\nhttps://a/1.jpg\n", 1,
         "line 1: an indented line gives an option to the URL above it, and there is none"),
        ("# first\n\n\tsha256=\(String(repeating: "0", count: 64))\n", 3,
         "line 3: an indented line gives an option to the URL above it, and there is none"),
        ("https://a/1.jpg\n  dir=/tmp\n", 2, #"line 2: unknown option "dir"= (the options are out= and sha256=)"#),
        ("https://a/1.jpg\n  out\n", 2, #"line 2: an indented line is an option, name=value (out= and sha256=), not "out""#),
        ("https://a/1.jpg\n  sha256=abc\n", 2, "line 2: sha256= is not 64 hex digits"),
        ("https://a/1.jpg\n  sha256=\(String(repeating: "g", count: 64))\n", 2, "line 2: sha256= is not 64 hex digits"),
        ("https://a/1.jpg\n  out=\n", 2, "line 2: out= needs a file name"),
        ("https://a/1.jpg\n  out=a\n  out=b\n", 3, "line 3: a second out= for the URL of line 1"),
        ("https://a/1.jpg\r\nhttps://a/\u{1}.jpg\r\n", 2, #"line 2: a URL holds no control character: "https://a/?.jpg""#),
    ])
    func aBadLineIsRefusedWithItsNumber(list: String, line: Int, reason: String) {
        let error = manifestError { _ = try text(list) }
        #expect(error?.code == .badLine)
        #expect(error?.line == line)
        #expect(error?.file == "urls.txt")
        #expect(error?.description == "urls.txt: " + reason)
    }

    @Test func aRefusalIsOneLineHoweverLongTheLine() {
        let error = manifestError { _ = try text("https://a/1.jpg\n" + "x" + String(repeating: "y", count: 5000) + "\n") }
        #expect(error?.line == 2)
        #expect(error?.description == "urls.txt: line 2: not an http(s) URL: \"x\(String(repeating: "y", count: 76))...\"")
    }

    @Test func invalidUTF8IsRefusedByLine() {
        let bytes = Array("https://a/1.jpg\nhttps://a/".utf8) + [0xC3, 0x28] + Array(".jpg\n".utf8)
        let error = manifestError { _ = try Manifest.parseList(contents: bytes, name: "urls.txt") }
        #expect(error?.description == "urls.txt: line 2: not UTF-8 text")
    }

    @Test func aListOfOnlyCommentsIsRefusedAsEmpty() {
        let error = manifestError { _ = try text("# nothing yet\n\n   \n") }
        #expect(error?.code == .empty)
        #expect(error?.description == "urls.txt: holds no URL (only blank lines and # comments)")
    }

    @Test func aFileWhoseFirstCharacterIsABracketOrABraceIsJSONWithItsFaultsWhere() {
        // A leading space, a blank line and a TAB before the JSON: still JSON, its fault's position counted
        // from the file's first byte.
        let array = manifestError { _ = try text(" \n\t[\"https://a/1.jpg\",]", name: "list.json") }
        #expect(array?.code == .malformedJSON)
        #expect(array?.line == 2)
        #expect(array?.column == 21)
        #expect(array?.description == "list.json: malformed JSON at line 2, column 21 (unexpected ']'; expected a value)")
        let object = manifestError { _ = try text("  {\"items\" []}", name: "list.txt") }
        #expect(object?.code == .malformedJSON)
        #expect(object?.description == "list.txt: malformed JSON at line 1, column 12 (expected ':')")
        #expect(throws: Never.self) { try text("\n  [\"https://a/1.jpg\"]") }
    }

    @Test func jsonObjectsMayNameTheirDeliveredFile() throws {
        let list = try parse(#"[{"url": "https://a/1.jpg", "out": "one.jpg"}, {"url": "https://a/2.jpg", "out": null}]"#)
        #expect(list.resources.map(\.out) == ["one.jpg", nil])
        let error = manifestError { _ = try parse(#"[{"url": "https://a/1.jpg", "out": ""}]"#) }
        #expect(error?.description == #"list.json: the "out" of the item at index 0 is not a file name"#)
    }

    @Test func aZipHoldsTextListsBesideJSONOnesAndSkipsAReadme() throws {
        let dir = TemporaryDirectory("manifest-text-zip")
        let path = try ManifestFixtures.writeZip([
            ("lists/Set 1.json", ManifestFixtures.urls),
            ("lists/more.txt", "# mirrors\nhttps://a.example/x.iso\thttps://b.example/x.iso\n  out=x.iso\n"),
            ("lists/looks-like-json.txt", "  [\"https://example.com/j.jpg\"]"),
            ("README.txt", "These lists were exported on Monday.\nhttps://example.com/ is where they come from.\n"),
        ], in: dir)
        let lists = try Manifest.read(path: path, displayName: "manifest.zip")
        #expect(lists.map(\.name) == ["looks-like-json.txt", "more.txt", "Set 1.json"])
        #expect(Array(lists[1].resources) == [ManifestResource(url: "https://a.example/x.iso",
                                                               mirrors: ["https://b.example/x.iso"], out: "x.iso")])
        #expect(lists[0].resources.map(\.url) == ["https://example.com/j.jpg"])
    }

    @Test func aBadLineOfAZippedTextListRefusesTheZip() throws {
        let dir = TemporaryDirectory("manifest-text-zip-bad")
        let path = try ManifestFixtures.writeZip([
            ("Set 1.json", ManifestFixtures.urls),
            ("more.txt", "https://a.example/1.jpg\n  referer=https://a.example/\n"),
        ], in: dir)
        let error = manifestError { _ = try Manifest.read(path: path, displayName: "manifest.zip") }
        #expect(error?.description == #"more.txt: line 2: unknown option "referer"= (the options are out= and sha256=)"#)
    }

    @Test func aZipOfOnlyAReadmeHoldsNoList() throws {
        let dir = TemporaryDirectory("manifest-text-zip-readme")
        let path = try ManifestFixtures.writeZip([("README.txt", "nothing here\n")], in: dir)
        let error = manifestError { _ = try Manifest.read(path: path, displayName: "manifest.zip") }
        #expect(error?.description == "manifest.zip: holds no .json or .txt list")
    }

    @Test func aFileThatIsNeitherJSONNorAZipIsReadAsATextList() throws {
        let dir = TemporaryDirectory("manifest-text-file")
        let path = try ManifestFixtures.writeFile("https://example.com/a.jpg\n", in: dir, as: "download.tmp")
        let lists = try Manifest.read(path: path, displayName: "/home/me/urls.txt")
        #expect(lists == [ManifestList(name: "urls.txt", resources: [ManifestResource(url: "https://example.com/a.jpg")],
                                       form: .urls)])
        let json = try ManifestFixtures.writeFile(" [\"https://example.com/a.jpg\" x]", in: dir, as: "list.json")
        let error = manifestError { _ = try Manifest.read(path: json, displayName: "list.json") }
        #expect(error?.description == "list.json: malformed JSON at line 1, column 31 (expected ',' or ']')")
    }
}
