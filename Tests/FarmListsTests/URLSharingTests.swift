import FarmJSON
@testable import FarmLists
import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Testing

/// The URLs an add reads from the spool's tables (FarmLists' URLSharing.swift): read from a line's bytes
/// where that is sure to give the URL, decoded everywhere else, and the same key either way.
@Suite struct URLSharingTests {
    /// The record's line in a table, without its end of line.
    private func line(_ record: JobRecord) -> ArraySlice<UInt8> {
        let bytes = record.encoded()
        return bytes.last == 0x0A ? bytes.dropLast() : ArraySlice(bytes)
    }

    /// Lines as this farm writes them, with every member and text that could mislead a reader of bytes.
    @Test func aLineIsReadWithoutDecodingOnlyWhenItsURLIsItsLastMemberWithNoEscape() throws {
        var tricky = JobRecord(url: "http://example.com/a.jpg?q=\"x\"", id: "q")
        tricky.title = #"a","url":"http://evil/""#
        var titled = JobRecord(url: "https://example.com/é/ü.png", id: "t", sha256: String(repeating: "a", count: 64))
        titled.title = #"\","url":"x"#
        titled.caption = "line\nbreak"
        titled.own = true
        titled.after = JobName(list: "0123456789abcdef", index: 3)
        let plain = JobRecord(url: "http://127.0.0.1:1/r/1.jpg", id: "0123456789abcdef.1")
        let slash = JobRecord(url: #"http://example.com/back\slash.jpg"#, id: "s")
        for record in [tricky, titled, plain, slash] {
            let line = line(record)
            let read = URLSharing.key(ofLine: line)
            #expect(read == nil || read == URLSharing.key(record.url), "\(String(decoding: line, as: UTF8.self))")
        }
        #expect(URLSharing.key(ofLine: line(plain)) == URLSharing.key(plain.url))
        #expect(URLSharing.key(ofLine: line(titled)) == URLSharing.key(titled.url))
        #expect(URLSharing.key(ofLine: line(tricky)) == nil, "a quote in the URL is escaped")
        #expect(URLSharing.key(ofLine: line(slash)) == nil, "so is a backslash")
        // A line in another writer's order, its URL first and its slashes escaped, is left to the decoder.
        let older = Array(#"{"url":"http:\/\/example.com\/x.jpg","id":"o","title":"t"}"#.utf8)
        #expect(URLSharing.key(ofLine: ArraySlice(older)) == nil)
        #expect(URLSharing.key(ofLine: ArraySlice(Array(#"{"title":"t","url":"http://a/b"}"#.utf8))) == URLSharing.key("http://a/b"))
    }

    /// `named(among:)` finds every URL asked for that the lists name, however their lines read, and no other.
    @Test func namedFindsEveryURLOfEveryTable() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.path)
        var quoted = JobRecord(url: #"http://example.com/"q".jpg"#, id: "q")
        quoted.title = "T"
        let records = [JobRecord(url: "http://a/1.jpg", id: "1"), quoted, JobRecord(url: "https://b/ü.png", id: "2")]
        let list = ListID.of(name: "Named")
        try spool.enqueue(records.enumerated().map { NewJob(name: JobName(list: list, index: $0), record: $1) },
                          lists: [ListRecordFile(id: list, bytes: Array("{}".utf8))])
        let asked = Set((records.map(\.url) + ["http://a/not-named.jpg"]).map(URLSharing.key))
        let named = URLSharing(spool).named(among: asked)
        #expect(named.keys == Set(records.map { URLSharing.key($0.url) }))
        #expect(!named.unknown)
    }
}
