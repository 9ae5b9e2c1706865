import FarmTestSupport
import Testing
@testable import FarmWARC

/// Records built from known inputs, byte by byte, their digests computed by Python's hashlib and base64.
@Suite struct WARCRecordTests {
    /// The bytes of a prepared record, as the file's gzip member holds them.
    private func bytes(_ record: WARCRecord, warcinfo: WARCRecordID?) throws -> [UInt8] {
        var out: [UInt8] = []
        try record.digested().prepared(warcinfoID: warcinfo).forEachChunk { out += $0 }
        return out
    }

    @Test func base32IsRFC4648() {
        // RFC 4648 §10's vectors.
        let vectors = ["": "", "f": "MY======", "fo": "MZXQ====", "foo": "MZXW6===", "foob": "MZXW6YQ=",
                       "fooba": "MZXW6YTB", "foobar": "MZXW6YTBOI======"]
        for (input, output) in vectors { #expect(Base32.encode(Array(input.utf8)) == output) }
    }

    @Test func datesAreUTCToTheSecond() {
        #expect(WARCDate(seconds: 0).text == "1970-01-01T00:00:00Z")
        #expect(WARCDate(seconds: 951_782_400).text == "2000-02-29T00:00:00Z")
        #expect(WARCDate(seconds: 1_796_605_323).text == "2026-12-07T01:02:03Z")
        #expect(WARCDate(seconds: 4_102_444_799).text == "2099-12-31T23:59:59Z")
        #expect(WARCDate(seconds: 1_796_605_323).compact == "20261207010203")
    }

    @Test func recordIDsAreRandomVersion4UUIDs() {
        let ids = (0..<100).map { _ in WARCRecordID().text }
        #expect(Set(ids).count == 100)
        for id in ids {
            let uuid = Array(id.dropFirst("<urn:uuid:".count).dropLast())
            #expect(id.hasPrefix("<urn:uuid:") && id.hasSuffix(">") && uuid.count == 36)
            #expect(uuid[14] == "4")
            #expect("89ab".contains(uuid[19]))
            #expect(uuid.allSatisfy { "0123456789abcdef-".contains($0) })
        }
    }

    @Test func aResponseRecordIsItsHeaderItsBlockAndTwoLineEnds() throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\n"
        let body = "hello, world"
        let record = WARCRecord(
            kind: .response, id: WARCRecordID(text: "<urn:uuid:0d9b5b6e-4a43-4c61-9b0e-5f3c1c0a2b7d>"),
            date: WARCDate(seconds: 1_796_605_323), contentType: "application/http;msgtype=response",
            fields: [.init("WARC-Target-URI", "http://127.0.0.1:8080/a.txt"), .init("WARC-IP-Address", "127.0.0.1")],
            block: WARCBlock(head: Array(head.utf8), body: .bytes(Array(body.utf8))))
        let blockDigest = try WARCTools.pythonDigest(Array((head + body).utf8))
        let payloadDigest = try WARCTools.pythonDigest(Array(body.utf8))
        #expect(blockDigest.count == 37 && payloadDigest.count == 37)
        let expected = "WARC/1.1\r\n"
            + "WARC-Type: response\r\n"
            + "WARC-Record-ID: <urn:uuid:0d9b5b6e-4a43-4c61-9b0e-5f3c1c0a2b7d>\r\n"
            + "WARC-Date: 2026-12-07T01:02:03Z\r\n"
            + "WARC-Target-URI: http://127.0.0.1:8080/a.txt\r\n"
            + "WARC-IP-Address: 127.0.0.1\r\n"
            + "WARC-Warcinfo-ID: <urn:uuid:11111111-2222-4333-8444-555555555555>\r\n"
            + "Content-Type: application/http;msgtype=response\r\n"
            + "WARC-Block-Digest: \(blockDigest)\r\n"
            + "WARC-Payload-Digest: \(payloadDigest)\r\n"
            + "Content-Length: \((head + body).utf8.count)\r\n"
            + "\r\n" + head + body + "\r\n\r\n"
        let made = try bytes(record, warcinfo: WARCRecordID(text: "<urn:uuid:11111111-2222-4333-8444-555555555555>"))
        #expect(String(decoding: made, as: UTF8.self) == expected)
    }

    @Test func aBodyFromAFileDigestsAsTheSameBytesInMemory() throws {
        let dir = TemporaryDirectory("farm-warc")
        let payload = WARCTools.random(3 * WARCBody.chunkSize + 12_345)
        try WARCTools.write(payload, to: dir.appending("body"))
        let head = Array("HTTP/1.1 200 OK\r\n\r\n".utf8)
        let id = WARCRecordID()
        func record(_ body: WARCBody) -> WARCRecord {
            WARCRecord(kind: .response, id: id, date: WARCDate(seconds: 0), contentType: "application/http;msgtype=response",
                       fields: [], block: WARCBlock(head: head, body: body))
        }
        let fromFile = try record(.file(dir.appending("body"))).digested()
        let fromBytes = try record(.bytes(payload)).digested()
        #expect(fromFile.blockDigest == fromBytes.blockDigest)
        #expect(fromFile.payloadDigest == (try WARCTools.pythonDigest(payload)))
        #expect(fromFile.blockDigest == (try WARCTools.pythonDigest(head + payload)))
        #expect(fromFile.blockLength == head.count + payload.count)
    }

    @Test func theRequestComesAfterItsResponseAndNamesIt() throws {
        let exchange = WARCTools.exchange("/a", body: .bytes([1, 2, 3]), date: WARCDate(seconds: 1_796_605_323))
        let records = exchange.records()
        #expect(records.map(\.kind) == [.response, .request])
        #expect(records[1].fields.contains(.init("WARC-Concurrent-To", records[0].id.text)))
        #expect(records.allSatisfy { $0.fields.contains(.init("WARC-Target-URI", "http://127.0.0.1:8080/a")) })
        // A GET has no payload: no payload digest, as wget writes it.
        let request = String(decoding: try bytes(records[1], warcinfo: nil), as: UTF8.self)
        #expect(request.contains("WARC-Block-Digest: sha1:"))
        #expect(!request.contains("WARC-Payload-Digest"))
        #expect(request.contains("Content-Type: application/http;msgtype=request\r\n"))
        let emptySHA1 = try WARCTools.pythonDigest([])
        let empty = WARCRecord(kind: .response, date: WARCDate(seconds: 0), contentType: "application/http;msgtype=response",
                               fields: [], block: WARCBlock(head: Array("HTTP/1.1 204 No Content\r\n\r\n".utf8), body: .bytes([])))
        #expect(try empty.digested().payloadDigest == emptySHA1)
        #expect(emptySHA1 == "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ")
    }
}
