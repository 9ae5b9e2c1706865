import FarmTransfer
import Testing

/// The response headers a transfer acts on, read line by line as curl hands them over: hostile and
/// obsolete forms included (the fuzz target `headers` checks the same properties on any bytes).
@Suite struct ResponseHeadersTests {
    private static let now = 1_800_000_000.0  // 2027-01-15 08:00:00 GMT

    private func read(_ lines: [String]) -> ResponseHeaders {
        var headers = ResponseHeaders()
        for line in lines {
            Array((line + "\r\n").utf8).withUnsafeBytes { headers.read($0, now: Self.now) }
        }
        return headers
    }

    @Test func retryAfterIsSecondsOrAnHTTPDateInAnyOfItsThreeForms() {
        #expect(read(["Retry-After: 120"]).retryAfter == 120)
        #expect(read(["retry-after:\t 7 "]).retryAfter == 7)
        #expect(read(["Retry-After: Fri, 15 Jan 2027 08:01:30 GMT"]).retryAfter == 90)
        #expect(read(["Retry-After: Friday, 15-Jan-27 08:00:05 GMT"]).retryAfter == 5)
        #expect(read(["Retry-After: Fri Jan 15 08:00:10 2027"]).retryAfter == 10)
        // A date gone by is no wait at all.
        #expect(read(["Retry-After: Sun, 06 Nov 1994 08:49:37 GMT"]).retryAfter == 0)
        for bad in ["-5", "1e308", "0x10", "nan", "inf", "99999999999999999999999", "5 s", "", "Mon, 31 Feb 2025 00:00:00 GMT",
                    "Fri, 15 Jan 2027 24:00:00 GMT", "Fri, 15 Jan 2027 08:00:00 UTC", "Fri, 5 Jan 2027 08:00:00 GMT"] {
            #expect(read(["Retry-After: \(bad)"]).retryAfter == nil, "\(bad)")
        }
    }

    @Test func httpDatesReadAsTheSecondTheyNameAndWriteBack() {
        let imf = ResponseHeaders.httpDate("Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(imf == 784_111_777)
        #expect(ResponseHeaders.httpDate("Sunday, 06-Nov-94 08:49:37 GMT", now: Self.now) == imf)
        #expect(ResponseHeaders.httpDate("Sun Nov  6 08:49:37 1994") == imf)
        #expect(ResponseHeaders.imfFixdate(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        // A two-digit year more than 50 years ahead is the last such year past (RFC 9110 §5.6.7).
        #expect(ResponseHeaders.httpDate("Sunday, 01-Jan-78 00:00:00 GMT", now: Self.now) == 252_460_800)
        #expect(ResponseHeaders.httpDate("Saturday, 01-Jan-77 00:00:00 GMT", now: Self.now) == 3_376_684_800)
        #expect(ResponseHeaders.httpDate("Thursday, 29-Feb-24 00:00:00 GMT", now: Self.now) == 1_709_164_800)
        #expect(ResponseHeaders.httpDate("Thursday, 29-Feb-23 00:00:00 GMT", now: Self.now) == nil)
    }

    @Test func aValueWithAControlCharacterIsNotKeptSinceValidatorsGoBackToTheServer() {
        let headers = read(["ETag: \"a\"\rX-Evil: 1", "Last-Modified: Sun, 06 Nov 1994\u{0} 08:49:37 GMT",
                            "Content-Type: image/png"])
        #expect(headers.etag == nil && headers.lastModified == nil && headers.contentType == "image/png")
        #expect(read(["ETag: W/\"weak\"", "Last-Modified: x"]).rangeValidator == "x")
        #expect(read(["ETag: \"strong\"", "Last-Modified: x"]).rangeValidator == "\"strong\"")
    }

    /// A 416's `*/N` and a 206's `A-B/N` both tell the whole size (what a resource in pieces is planned by);
    /// `A-B/*` tells none.
    @Test func aContentRangeTellsTheWholeSizeAndAStatusLineForgetsTheResponseBefore() {
        #expect(read(["Content-Range: bytes */12345"]).completeSize == 12345)
        #expect(read(["Content-Range: bytes */-3"]).completeSize == nil)
        #expect(read(["Content-Range: bytes 0-9/100"]).completeSize == 100)
        #expect(read(["Content-Range: bytes 0-9/*"]).completeSize == nil)
        let redirected = read(["HTTP/1.1 302 Found", "ETag: \"old\"", "Retry-After: 3", "HTTP/1.1 200 OK"])
        #expect(redirected == ResponseHeaders())
    }
}
