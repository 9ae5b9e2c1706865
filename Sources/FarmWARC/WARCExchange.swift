/// One HTTP exchange to record: the request as sent and the response as received, for one target URI.
///
/// What the blocks hold is the caller's: farm follows wget, whose WARC gets "an exact copy of the response"
/// (src/retr.c): the head as received, and the body's bytes as they came off the connection, so a chunked
/// body keeps its chunk framing and a gzip Content-Encoding stays compressed; the payload digest is over
/// those stored bytes (src/warc.c digests from the end of the head to the end of the block). A caller that
/// only has the decoded body must then drop the Transfer-Encoding and Content-Encoding fields from the head
/// it gives, or readers decode it a second time.
public struct WARCExchange: Sendable {
    public var targetURI: String
    public var date: WARCDate
    /// The address the request went to (WARC-IP-Address), when known.
    public var ipAddress: String?
    public var request: WARCBlock
    public var response: WARCBlock
    /// The response's body is not all that came (a caller keeps so much of an error page): its record says
    /// `WARC-Truncated: length`, as ISO 28500 has a record cut by a size limit say.
    public var responseTruncated = false

    public init(targetURI: String, date: WARCDate = .now(), ipAddress: String?, request: WARCBlock,
                response: WARCBlock, responseTruncated: Bool = false) {
        self.targetURI = targetURI
        self.date = date
        self.ipAddress = ipAddress
        self.request = request
        self.response = response
        self.responseTruncated = responseTruncated
    }

    /// Its two records, response first: the response is the one a reader replays, so a kill between the two
    /// members leaves the response whole and the request absent, never a request whose response is lost
    /// (Heritrix writes them in this order too). The request names its response in WARC-Concurrent-To.
    func records() -> [WARCRecord] {
        var common = [WARCRecord.Field("WARC-Target-URI", targetURI)]
        if let ipAddress { common.append(WARCRecord.Field("WARC-IP-Address", ipAddress)) }
        let cut = responseTruncated ? [WARCRecord.Field("WARC-Truncated", "length")] : []
        let response = WARCRecord(kind: .response, date: date, contentType: "application/http;msgtype=response",
                                  fields: common + cut, block: self.response)
        let request = WARCRecord(kind: .request, date: date, contentType: "application/http;msgtype=request",
                                 fields: common + [WARCRecord.Field("WARC-Concurrent-To", response.id.text)],
                                 block: self.request)
        return [response, request]
    }
}
