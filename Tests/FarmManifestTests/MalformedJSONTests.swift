import Testing
@testable import FarmManifest

@Suite struct MalformedJSONTests {
    @Test func theMessageNamesTheFileLineAndColumn() {
        let json = """
            [
              "https://example.com/1.jpg",
              "https://example.com/2.jpg",
              "https://example.com/3.jpg" "https://example.com/4.jpg"
            ]
            """
        let error = manifestError { _ = try parse(json, name: "Set 3.json") }
        #expect(error?.code == .malformedJSON)
        #expect(error?.file == "Set 3.json")
        #expect(error?.line == 4)
        #expect(error?.column == 31)
        #expect(error?.description == "Set 3.json: malformed JSON at line 4, column 31 (expected ',' or ']')")
    }

    @Test(arguments: [
        ("", 1, 1, "empty file"),
        ("[", 1, 2, "malformed JSON at line 1, column 2 (unexpected end of file; expected a value)"),
        ("[\"a\",]", 1, 6, "malformed JSON at line 1, column 6 (unexpected ']'; expected a value)"),
        ("{\"a\" 1}", 1, 6, "malformed JSON at line 1, column 6 (expected ':')"),
        ("{\"a\": 1,}", 1, 9, "malformed JSON at line 1, column 9 (expected a string key in double quotes)"),
        ("{\"a\": 1 \"b\": 2}", 1, 9, "malformed JSON at line 1, column 9 (expected ',' or '}')"),
        ("{'a': 1}", 1, 2, "malformed JSON at line 1, column 2 (expected a string key in double quotes)"),
        ("[\"a\"] x", 1, 7, "malformed JSON at line 1, column 7 (unexpected 'x' after the end of the JSON value)"),
        ("[tru]", 1, 2, "malformed JSON at line 1, column 2 (unexpected 't'; expected a value)"),
        ("[01]", 1, 2, "malformed JSON at line 1, column 2 (invalid number)"),
        ("[1.]", 1, 2, "malformed JSON at line 1, column 2 (invalid number)"),
        ("[\"abc", 1, 2, "malformed JSON at line 1, column 2 (unterminated string)"),
        ("[\n  \"abc\n\"]", 2, 3,
         "malformed JSON at line 2, column 3 (unterminated string: a line break comes before its closing '\"')"),
        ("[\"a\\x\"]", 1, 4, "malformed JSON at line 1, column 4 (invalid escape sequence in a string)"),
        ("[\"\\ud83d\"]", 1, 3, "malformed JSON at line 1, column 3 (invalid \\u escape: a lone surrogate)"),
        ("[\"\\u12G4\"]", 1, 3, "malformed JSON at line 1, column 3 (invalid \\u escape)"),
        ("[\"tab\there\"]", 1, 6, "malformed JSON at line 1, column 6 (unescaped control character in a string)"),
        ("[\"é\", \"ü\" ,, ]", 1, 12, "malformed JSON at line 1, column 12 (unexpected ','; expected a value)"),
        ("\u{FEFF}[1 2]", 1, 4, "malformed JSON at line 1, column 4 (expected ',' or ']')"),
    ])
    func errorsSayWhereAndWhat(json: String, line: Int, column: Int, reason: String) {
        let error = manifestError { _ = try parse(json, name: "x.json") }
        #expect(error?.description == "x.json: " + reason)
        if reason != "empty file" {
            #expect(error?.code == .malformedJSON)
            #expect(error?.line == line)
            #expect(error?.column == column)
        } else {
            #expect(error?.code == .empty)
        }
    }

    @Test func invalidUTF8IsRefused() {
        let bytes: [UInt8] = Array("[\"https://a/".utf8) + [0xC3, 0x28] + Array("\"]".utf8)
        let error = manifestError { _ = try Manifest.parseList(json: bytes, name: "bad.json") }
        #expect(error?.description == "bad.json: malformed JSON at line 1, column 3 (invalid UTF-8 in a string)")
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let json = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = manifestError { _ = try parse(json) }
        #expect(error?.code == .malformedJSON)
        #expect(error?.description
            == "list.json: malformed JSON at line 1, column 513 (nested more than 512 levels deep)")
    }

    @Test func aByteOrderMarkIsAccepted() throws {
        #expect(try parse("\u{FEFF}[\"https://a\"]").resources == [ManifestResource(url: "https://a")])
    }
}
