import FarmDedup
import FarmJSON
import Testing

/// `urls/<key>` through FarmJSON: the bytes a farm writes are those it always wrote (the literals are what
/// every farm so far wrote, through Codable or by hand), nils left out, and a record that names no blob
/// is no record.
@Suite struct URLRecordJSONTests {
    static let blob = String(repeating: "0123456789abcdef", count: 4)

    @Test func writesTheBytesItAlwaysWrote() {
        let full = URLRecord(url: "https://a/b.png?x=1", blob: Self.blob, size: 12, kind: "png", etag: "\"e1\"",
                             modified: "Tue, 01 Jan 2030 00:00:00 GMT")
        #expect(String(decoding: JSON.encode(full), as: UTF8.self) == #"{"blob":"\#(Self.blob)","etag":"\"e1\"","#
            + #""kind":"png","modified":"Tue, 01 Jan 2030 00:00:00 GMT","size":12,"url":"https://a/b.png?x=1"}"# + "\n")
        let bare = URLRecord(url: "http://h/é", blob: Self.blob, size: 0, kind: nil)
        #expect(String(decoding: JSON.encode(bare), as: UTF8.self)
            == #"{"blob":"\#(Self.blob)","size":0,"url":"http://h/é"}"# + "\n")
        for record in [full, bare] { #expect(JSON.decode(URLRecord.self, from: JSON.encode(record)) == record) }
    }

    @Test func readsNullsAsMissingAndRefusesWhatIsNoRecord() {
        let withNulls = #"{"url":"u","blob":"\#(Self.blob)","size":3,"kind":null,"etag":null,"extra":1}"#
        #expect(JSON.decode(URLRecord.self, from: Array(withNulls.utf8))
            == URLRecord(url: "u", blob: Self.blob, size: 3, kind: nil))
        #expect(JSON.decode(URLRecord.self, from: Array(#"{"url":"u","blob":"\#(Self.blob)"}"#.utf8)) == nil)
        #expect(JSON.decode(URLRecord.self, from: Array(#"{"url":"u","blob":"\#(Self.blob)","size":"3"}"#.utf8)) == nil)
    }
}
