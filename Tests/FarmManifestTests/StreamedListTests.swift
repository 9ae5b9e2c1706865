import Testing
@testable import FarmManifest

/// A list's array is streamed into compact spans rather than kept as a tree: the result must be the same
/// as reading the whole document first, whatever the strings hold and wherever the errors are.
@Suite struct StreamedListTests {
    @Test func escapedAndNonASCIIStringsAreDecodedAndPlainOnesKept() throws {
        let list = try parse(#"[{"url": "https://a/\u00e9t\u00e9.jpg", "id": 7}, {"url": "https://a/été.png", "uuid": "x\"y"}, "#
            + #"{"url": "https://a/plain.pdf"}]"#)
        #expect(list.resources == [
            ManifestResource(url: "https://a/été.jpg", id: "7"),
            ManifestResource(url: "https://a/été.png", id: "x\"y"),
            ManifestResource(url: "https://a/plain.pdf"),
        ])
    }

    @Test func aSyntaxErrorAfterAMisfitIsStillTheError() {
        // The misfit (a number among URL strings) comes first in the text, the syntax error last.
        let error = #expect(throws: ManifestError.self) { try parse(#"["https://a/1.jpg", 2, "https://a/3.jpg" "#) }
        #expect(error?.code == .malformedJSON)
    }

    @Test func theLastItemsMemberCounts() throws {
        let list = try parse(#"{"items": [{"imageUrlString": "https://a/old.jpg"}], "#
            + #""items": [{"imageUrlString": "https://a/new.jpg", "uuid": "n"}]}"#)
        #expect(list.resources == [ManifestResource(url: "https://a/new.jpg", id: "n")])

        let error = #expect(throws: ManifestError.self) {
            try parse(#"{"items": [{"imageUrlString": "https://a/old.jpg"}], "items": 5}"#)
        }
        #expect(error?.description.contains("\"items\" is a number, not an array") == true)
    }

    @Test func aMisfitInItemsIsNamedByItsIndex() {
        let error = #expect(throws: ManifestError.self) {
            try parse(#"{"items": [{"imageUrlString": "https://a/1.jpg"}, {"uuid": "u"}]}"#)
        }
        #expect(error?.description.contains("the item at index 1 has no \"imageUrlString\"") == true)
    }

    @Test func aThousandResourcesReadBackInOrder() throws {
        let urls = (0..<1000).map { "https://example.com/\($0).jpg" }
        let list = try parse("[" + urls.map { "\"\($0)\"" }.joined(separator: ",") + "]")
        #expect(list.resources.map(\.url) == urls)
        #expect(list.resources.allSatisfy { $0.id == nil })
    }
}
