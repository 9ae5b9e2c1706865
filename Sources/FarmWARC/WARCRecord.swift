import Crypto

/// One WARC/1.1 record (ISO 28500:2017): its named fields, and its block given as bytes and a body to read.
///
/// The records farm writes, with the fields wget writes for each:
/// - `warcinfo`: what wrote the file (`software`, `format`, `conformsTo`), in `application/warc-fields`;
/// - `request`: the HTTP request as sent, `application/http;msgtype=request`;
/// - `response`: the status line, header fields and body as received, `application/http;msgtype=response`.
/// The block's digest is the SHA-1 of the whole block; the payload's, of the bytes after the HTTP head, as
/// they are stored (wget keeps a chunked body's framing and a compressed body compressed, and digests those
/// bytes: see `WARCExchange`). Both are `sha1:` + base32, as wget and Heritrix write them.
public struct WARCRecord: Sendable {
    public enum Kind: String, Sendable {
        case warcinfo, request, response
    }

    /// A named field other than those the record computes (length, digests).
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public let kind: Kind
    public let id: WARCRecordID
    public let date: WARCDate
    public let contentType: String
    /// In the order written, after WARC-Type, WARC-Record-ID and WARC-Date.
    public let fields: [Field]
    public let block: WARCBlock

    public init(kind: Kind, id: WARCRecordID = WARCRecordID(), date: WARCDate, contentType: String,
                fields: [Field], block: WARCBlock) {
        self.kind = kind
        self.id = id
        self.date = date
        self.contentType = contentType
        self.fields = fields
        self.block = block
    }

    /// A warcinfo record opening the file `filename`.
    static func warcinfo(filename: String, software: String, date: WARCDate) -> WARCRecord {
        let info = "software: \(software)\r\n" + "format: WARC File Format 1.1\r\n"
            + "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"
        return WARCRecord(kind: .warcinfo, date: date, contentType: "application/warc-fields",
                          fields: [Field("WARC-Filename", filename)], block: WARCBlock(head: Array(info.utf8)))
    }

    /// The digests and the length of the block, read once from it (the first of the two passes over a file body).
    func digested() throws(WARCError) -> DigestedRecord {
        var blockHash = Insecure.SHA1()
        var payloadHash = Insecure.SHA1()
        block.head.withUnsafeBytes { blockHash.update(bufferPointer: $0) }
        var payloadLength = 0
        if let body = block.body {
            payloadLength = try body.forEachChunk { (chunk) throws(WARCError) in
                blockHash.update(bufferPointer: chunk)
                payloadHash.update(bufferPointer: chunk)
            }
        }
        return DigestedRecord(record: self, blockDigest: Self.digestText(blockHash.finalize()),
                              payloadDigest: block.body == nil ? nil : Self.digestText(payloadHash.finalize()),
                              blockLength: block.head.count + payloadLength)
    }

    /// `sha1:` + the base32 of a SHA-1.
    static func digestText(_ digest: Insecure.SHA1.Digest) -> String {
        "sha1:" + Base32.encode(Array(digest))
    }
}

/// A record whose block was read for its digests and length.
struct DigestedRecord {
    let record: WARCRecord
    let blockDigest: String
    let payloadDigest: String?
    let blockLength: Int

    /// The most bytes its header takes past its fields' own, with a WARC-Warcinfo-ID: for sizing before
    /// the file (and so the warcinfo) is known.
    var uncompressedBound: Int { prepared(warcinfoID: WARCRecordID(text: "")).uncompressedLength + 128 }

    /// The record's header through its empty line; `warcinfoID` names the file's warcinfo.
    func prepared(warcinfoID: WARCRecordID?) -> PreparedRecord {
        var lines = ["WARC/1.1", "WARC-Type: \(record.kind.rawValue)", "WARC-Record-ID: \(record.id.text)",
                     "WARC-Date: \(record.date.text)"]
        lines += record.fields.map { "\($0.name): \($0.value)" }
        if let warcinfoID { lines.append("WARC-Warcinfo-ID: \(warcinfoID.text)") }
        lines.append("Content-Type: \(record.contentType)")
        lines.append("WARC-Block-Digest: " + blockDigest)
        if let payloadDigest { lines.append("WARC-Payload-Digest: " + payloadDigest) }
        lines.append("Content-Length: \(blockLength)")
        let header = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        return PreparedRecord(id: record.id, header: header, block: record.block, blockLength: blockLength)
    }
}

/// A record whose header is made: what the file writes, in its second pass over the block.
struct PreparedRecord {
    let id: WARCRecordID
    let header: [UInt8]
    let block: WARCBlock
    let blockLength: Int

    /// The bytes the gzip member holds: header, block and the two CRLFs that end a record.
    var uncompressedLength: Int { header.count + blockLength + 4 }

    /// Calls `body` with each piece of the record's bytes in order; fails when the block's length is not the
    /// one its header says (a body file changed since its digest).
    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws(WARCError) -> Void) throws(WARCError) {
        try withBytes(header, body)
        try withBytes(block.head, body)
        var length = block.head.count
        if let payload = block.body { length += try payload.forEachChunk(body) }
        guard length == blockLength else {
            throw WARCError("the body of \(id) changed while it was written (\(blockLength) bytes, then \(length))")
        }
        try withBytes([13, 10, 13, 10], body)
    }
}
