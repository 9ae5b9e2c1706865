import FarmTransfer

/// libFuzzer's entry (`bin/fuzz headers`): any bytes as the header lines of responses, read as a transfer
/// reads them, one line at a time. A value farm keeps has no control character and no space at either
/// end (a validator goes back to the server in a request); a wait is a number of seconds, never negative;
/// a size is never negative; a status line forgets every header before it; a header's name is read in
/// any case alike; an HTTP date that reads writes back as an IMF-fixdate that reads to the same second.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let now = 1_800_000_000.0
    var headers = ResponseHeaders()
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
        let lineBytes = Array(line) + [0x0D, 0x0A]
        lineBytes.withUnsafeBytes { headers.read($0, now: now) }
        if lineBytes.starts(with: Array("HTTP/".utf8)) {
            precondition(headers == ResponseHeaders(), "a status line kept \(headers)")
        }
        // The same line with its name in upper case reads alike.
        var alone = ResponseHeaders(), upper = ResponseHeaders()
        lineBytes.withUnsafeBytes { alone.read($0, now: now) }
        let colon = lineBytes.firstIndex(of: UInt8(ascii: ":")) ?? 0
        let shouted = lineBytes[..<colon].map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 } + lineBytes[colon...]
        if !shouted.starts(with: Array("HTTP/".utf8)) {
            shouted.withUnsafeBytes { upper.read($0, now: now) }
            precondition(alone == upper, "\(alone) read as \(upper) with the name in upper case")
        }
        let text = String(decoding: line, as: UTF8.self)
        if let date = ResponseHeaders.httpDate(text, now: now) {
            let written = ResponseHeaders.imfFixdate(date)
            precondition(ResponseHeaders.httpDate(written, now: now) == date, "\(text) wrote back as \(written)")
        }
    }
    for value in [headers.contentType, headers.etag, headers.lastModified].compactMap({ $0 }) {
        precondition(!value.isEmpty && value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) },
                     "kept a control character: \(value.debugDescription)")
        precondition(value.utf8.first != 0x20 && value.utf8.last != 0x20 && value.utf8.last != 0x09,
                     "kept a space at an end: \(value.debugDescription)")
    }
    if let wait = headers.retryAfter { precondition(wait >= 0 && wait.isFinite, "a wait of \(wait) s") }
    if let size = headers.completeSize { precondition(size >= 0, "a size of \(size)") }
    return 0
}
