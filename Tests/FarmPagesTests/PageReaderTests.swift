import FarmJSON
import FarmLists
import FarmPages
import FarmSpool
import Testing

/// JSON Pointers with `*`, caption templates, and how one page is read (SPEC §7).
@Suite struct PageReaderTests {
    private let book: JSONValue = try! JSONParser.parse(Array("""
        {"id": 17, "metadata": {"title": "Dune", "cover": {"url": "https://x/dune.jpg"},
         "authors": [{"name": "Frank Herbert"}, {"name": "Brian"}, {"nick": "none"}], "a/b": {"~x": true}}}
        """.utf8))

    @Test func pointersFollowRFC6901AndStarMapsOverArrays() throws {
        #expect(try JSONPointer("/metadata/title").text(in: book) == "Dune")
        #expect(try JSONPointer("/id").text(in: book) == "17")
        #expect(try JSONPointer("/metadata/authors/*/name").text(in: book) == "Frank Herbert, Brian")
        #expect(try JSONPointer("/metadata/authors/1/name").text(in: book) == "Brian")
        #expect(try JSONPointer("/metadata/authors/01/name").text(in: book) == nil, "no leading zero in an index")
        #expect(try JSONPointer("/metadata/a~1b/~0x").text(in: book) == "true")
        #expect(try JSONPointer("/metadata/missing").text(in: book) == nil)
        #expect(try JSONPointer("").values(in: book) == [book])
        for bad in ["metadata", "/a~2", "/a~"] {
            #expect(throws: JSONMismatch.self, "\(bad)") { try JSONPointer(bad) }
        }
    }

    @Test func captionTemplatesReplaceTheirPointers() throws {
        #expect(try JSONTemplate("By: {/metadata/authors/*/name}").render(book) == "By: Frank Herbert, Brian")
        #expect(try JSONTemplate("{/metadata/title} {x} }").render(book) == "Dune {x} }")
        #expect(try JSONTemplate("With: {/narrators/*/name}").render(book) == nil, "nothing found: no caption")
        #expect(try JSONTemplate("plain").render(book) == "plain")
        #expect(throws: JSONMismatch.self) { try JSONTemplate("By: {/a") }
    }

    private func reader(next: String? = "/nextPage", id: String? = "/id") throws -> PageReader {
        try PageReader(PagedSource(first: "https://api.example.com/list/1?lang=en#top", items: "/consumables",
                                   url: "/metadata/cover/url", id: id, title: "/metadata/title",
                                   caption: "By: {/metadata/authors/*/name}", next: next,
                                   listTitle: "/meta/title", listCover: "/meta/cover"))
    }

    private func page(_ json: String) throws -> PageReader.Page {
        try reader().read(Array(json.utf8), from: "https://api.example.com/list/1")
    }

    @Test func aPageGivesItsItemsNextPageTitleAndCover() throws {
        let read = try page("""
            {"consumables": [
              {"id": 1, "metadata": {"title": "A", "cover": {"url": "https://x/a.jpg"}, "authors": [{"name": "Ann"}]}},
              {"id": 2, "metadata": {"title": "No cover"}},
              {"id": 3, "metadata": {"cover": {"url": 42}}},
              {"id": 4, "metadata": {"cover": {"url": "https://x/d.png"}}}],
             "nextPage": 2, "meta": {"title": "Books", "cover": "https://x/cover.jpg"}}
            """)
        #expect(read.items == [
            PageReader.Item(url: "https://x/a.jpg", id: "1", title: "A", caption: "By: Ann"),
            PageReader.Item(url: "https://x/d.png", id: "4", title: nil, caption: nil),
        ])
        #expect(read.skipped == 2)
        #expect(read.next == "https://api.example.com/list/1?lang=en&page=2#top")
        #expect(read.title == "Books")
        #expect(read.cover == "https://x/cover.jpg")
    }

    @Test func nextIsANumberAStringAURLOrTheEnd() throws {
        func next(_ value: String) throws -> String? { try page(#"{"consumables": [], "nextPage": \#(value)}"#).next }
        #expect(try next("3") == "https://api.example.com/list/1?lang=en&page=3#top")
        #expect(try next(#""a b/c""#) == "https://api.example.com/list/1?lang=en&page=a%20b%2Fc#top")
        #expect(try next(#""https://other.example.com/p?x=1""#) == "https://other.example.com/p?x=1")
        #expect(try next("null") == nil)
        #expect(try next(#""""#) == nil)
        #expect(try page(#"{"consumables": []}"#).next == nil)
        #expect(try reader(next: nil).read(Array(#"{"consumables": [], "nextPage": 2}"#.utf8), from: "x").next == nil)
        #expect(PageReader.url("http://h/p?page=1&q=2", setting: "page", to: "5") == "http://h/p?q=2&page=5")
        #expect(throws: PageError.self) { try next("{}") }
    }

    @Test func relativeItemAndCoverURLsAreResolvedAgainstThePage() throws {
        func item(_ url: String) throws -> String {
            try reader().read(Array(#"{"consumables": [{"metadata": {"cover": {"url": "\#(url)"}}}]}"#.utf8),
                              from: "https://api.example.com/v2/list/1?page=3#top").items[0].url
        }
        #expect(try item("https://x/a.jpg") == "https://x/a.jpg")
        #expect(try item("/covers/a.jpg") == "https://api.example.com/covers/a.jpg")
        #expect(try item("a.jpg") == "https://api.example.com/v2/list/a.jpg")
        #expect(try item("../img/a.jpg?s=2") == "https://api.example.com/v2/img/a.jpg?s=2")
        #expect(try item("./a/../b.png") == "https://api.example.com/v2/list/b.png")
        #expect(try item("//cdn.example.com/a.jpg") == "https://cdn.example.com/a.jpg")
        #expect(try item("?page=4") == "https://api.example.com/v2/list/1?page=4")
        // Another scheme stays as it is, for the worker to refuse.
        #expect(try item("ftp://x/a.jpg") == "ftp://x/a.jpg")
        let cover = try reader().read(Array(#"{"consumables": [], "meta": {"cover": "/c.jpg"}}"#.utf8),
                                      from: "http://127.0.0.1:8080/api?page=1").cover
        #expect(cover == "http://127.0.0.1:8080/c.jpg")
    }

    @Test func aBadPageSaysWhatIsWrong() throws {
        func reason(_ json: String) -> String {
            do {
                _ = try page(json)
                return "read"
            } catch let error as PageError { return error.reason } catch { return "\(error)" }
        }
        #expect(reason("{\"consumables\": [1,\n]}").hasPrefix("not JSON: line 2, column 1: "))
        #expect(reason(#"{"items": []}"#) == "--items /consumables finds nothing")
        #expect(reason(#"{"consumables": {}}"#) == "--items /consumables finds an object, not an array")
    }

    @Test func aSourceWithBadPointersIsRefused() {
        #expect(throws: PageError.self) { try PageReader(PagedSource(first: "https://x/", items: "items", url: "/u")) }
        #expect(throws: PageError.self) { try PageReader(PagedSource(first: "ftp://x/", items: "/items", url: "/u")) }
        #expect(throws: PageError.self) {
            try PageReader(PagedSource(first: "https://x/", items: "/items", url: "/u", pageParameter: "a&b"))
        }
        #expect(throws: PageError.self) {
            try PageReader(PagedSource(first: "https://x/", items: "/items", url: "/u", caption: "{/a"))
        }
    }
}
