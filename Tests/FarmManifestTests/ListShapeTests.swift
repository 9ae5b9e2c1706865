import Testing
import FarmJSON
@testable import FarmManifest

/// The end of every "unknown shape" message.
private let shapes = #"(expected an array of URL strings, an array of objects with a "url", or an object with "items")"#

@Suite struct ListShapeTests {
    @Test func anArrayOfURLStrings() throws {
        let list = try parse(#" ["https://example.com/a.jpg", "ftp://x/b.pdf", "not a url", ""] "#, name: "Set 1.json")
        #expect(list == ManifestList(name: "Set 1.json", resources: [
            ManifestResource(url: "https://example.com/a.jpg"), ManifestResource(url: "ftp://x/b.pdf"),
            ManifestResource(url: "not a url"), ManifestResource(url: ""),
        ], form: .urls))
    }

    @Test func anObjectWithItems() throws {
        let list = try parse("""
            {"title": "ignored", "items": [
              {"uuid": "0b1c", "imageUrlString": "https://example.com/a.jpg", "extra": [1, 2]},
              {"imageUrlString": "https://example.com/b.png"},
              {"uuid": 42, "imageUrlString": "https://example.com/c.pdf"}
            ]}
            """)
        #expect(list.resources == [
            ManifestResource(url: "https://example.com/a.jpg", id: "0b1c"),
            ManifestResource(url: "https://example.com/b.png", id: nil),
            ManifestResource(url: "https://example.com/c.pdf", id: "42"),
        ])
        #expect(list.form == .items)
    }

    @Test func anArrayOfObjectsWithURL() throws {
        let list = try parse("""
            [{"url": "https://example.com/a.jpg", "id": "first"},
             {"url": "https://example.com/b.jpg", "uuid": "u-2"},
             {"url": "https://example.com/c.jpg", "id": 7e2, "uuid": "ignored"},
             {"url": "https://example.com/d.jpg", "id": null}]
            """)
        #expect(list.resources == [
            ManifestResource(url: "https://example.com/a.jpg", id: "first"),
            ManifestResource(url: "https://example.com/b.jpg", id: "u-2"),
            ManifestResource(url: "https://example.com/c.jpg", id: "7e2"),
            ManifestResource(url: "https://example.com/d.jpg", id: nil),
        ])
        #expect(list.form == .objects)
    }

    @Test func escapesAndUnicodeAreDecoded() throws {
        let json = #"["https:\/\/example.com\/caf\u00e9 \ud83d\ude00.jpg", "https://example.com/ñ\"q\".jpg"]"#
        let list = try parse(json)
        #expect(list.resources.map(\.url) == ["https://example.com/café 😀.jpg", "https://example.com/ñ\"q\".jpg"])
    }

    @Test func anEmptyArrayIsAnEmptyList() throws {
        #expect(try parse("[]").resources.isEmpty)
    }

    @Test(arguments: [
        (#"{"foo": 1}"#, #"list.json: unknown shape: an object without "items" "# + shapes),
        ("42", "list.json: unknown shape: a number " + shapes),
        (#""https://example.com/a.jpg""#, "list.json: unknown shape: a string " + shapes),
        ("[1, 2]", "list.json: unknown shape: an array of numbers " + shapes),
        ("[[\"a\"]]", "list.json: unknown shape: an array of arrays " + shapes),
        (#"["https://a", 3]"#, "list.json: the item at index 1 is a number, not a URL string"),
        (#"["https://a", {"url": "https://b"}]"#, "list.json: the item at index 1 is an object, not a URL string"),
        (#"[{"link": "https://a"}]"#, #"list.json: the item at index 0 has no "url""#),
        (#"[{"url": 5}]"#, #"list.json: the "url" of the item at index 0 is a number, not a string"#),
        (#"[{"url": "https://a"}, "https://b"]"#,
         #"list.json: the item at index 1 is a string, not an object with a "url""#),
        (#"[{"url": "https://a", "id": {"x": 1}}]"#,
         #"list.json: the "id" of the item at index 0 is an object, not a string"#),
        (#"{"items": {"uuid": "1"}}"#, #"list.json: unknown shape: "items" is an object, not an array"#),
        (#"{"items": [{"uuid": "1"}]}"#, #"list.json: the item at index 0 has no "imageUrlString""#),
        (#"{"items": [{"uuid": "1", "imageUrlString": null}]}"#,
         #"list.json: the "imageUrlString" of the item at index 0 is null, not a string"#),
        (#"{"items": ["https://a"]}"#, #"list.json: the item at index 0 of "items" is a string, not an object"#),
    ])
    func unknownShapesAreRefused(json: String, message: String) {
        let error = manifestError { _ = try parse(json) }
        #expect(error?.code == .unknownShape)
        #expect(error?.description == message)
        #expect(error?.line == nil)
    }
}

/// `ListForm.document` writes what `ListShape` reads back as the same resources, in every shape.
@Suite struct ListFormTests {
    @Test(arguments: ListForm.allCases) func aDocumentReadsBackAsTheSameList(form: ListForm) throws {
        let digest = String(repeating: "0123456789abcdef", count: 4)
        let resources: [(url: String, id: String, sha256: String?)] = [
            (url: "https://example.com/a.jpg", id: "first", sha256: digest), (url: "https://example.com/b \"q\".pdf", id: "2", sha256: nil),
        ]
        let json = JSON.encode(form.document(resources))
        let list = try Manifest.parseList(json: json, name: "back.json")
        #expect(list.form == form)
        #expect(list.resources.map(\.url) == resources.map(\.url))
        #expect(list.resources.map(\.id) == (form == .urls ? [nil, nil] : resources.map(\.id)))
        #expect(list.resources.map(\.sha256) == (form == .urls ? [nil, nil] : resources.map(\.sha256)))
    }
}
