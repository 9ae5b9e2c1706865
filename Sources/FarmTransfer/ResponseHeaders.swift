import Glibc

/// The headers of a response that farm acts on, read from the lines curl hands over one at a time. They
/// come from servers nobody here runs: a value farm sends back (a validator, as `If-None-Match`,
/// `If-Range` or `If-Modified-Since`) is kept only when it holds no control character, so that no
/// response can add a line to a later request; a number is kept only when it is one.
public struct ResponseHeaders: Sendable, Equatable {
    public var contentType: String?
    /// Seconds the server asked us to wait (`Retry-After`, as seconds or as an HTTP date), from the
    /// moment its line was read; never negative.
    public var retryAfter: Double?
    /// The whole size, from `Content-Range`: `bytes */N` (a 416's) or `bytes A-B/N` (a 206's).
    public var completeSize: Int?
    /// The ETag (weak or strong) and Last-Modified, as sent.
    public var etag: String?
    public var lastModified: String?

    public init() {}

    /// The strong ETag, else the Last-Modified: what a resume sends as If-Range. A weak ETag cannot
    /// validate a range (RFC 9110 §13.1.5).
    public var rangeValidator: String? { etag.flatMap { $0.hasPrefix("\"") ? $0 : nil } ?? lastModified }

    /// Reads one header line (with or without its CRLF); a status line starts a new response (after a
    /// redirect), forgetting the previous one's headers. `now` (seconds since the epoch) is when a
    /// Retry-After date is counted from. Parsed as bytes: a few lines a job, where Foundation's trimming
    /// and lowercasing would cost more than the rest of the transfer's Swift.
    public mutating func read(_ line: UnsafeRawBufferPointer, now: @autoclosure () -> Double) {
        if line.starts(with: Self.statusPrefix) {
            self = ResponseHeaders()
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
              let field = Self.wanted.first(where: { Self.equalsIgnoringCase(line[..<colon], $0.name) })?.field
        else { return }
        var start = colon + 1, end = line.count
        while start < end && Self.isSpace(line[start]) { start += 1 }
        while end > start && Self.isSpace(line[end - 1]) { end -= 1 }
        let bytes = line[start..<end]
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else { return }
        let value = String(decoding: bytes, as: UTF8.self)
        switch field {
        case .contentType: contentType = value
        case .retryAfter:
            if let seconds = Self.digits(bytes) {
                retryAfter = Double(seconds)
            } else if let date = Self.httpDate(value) {
                retryAfter = max(0, date - now())
            }
        case .etag: etag = value
        case .lastModified: lastModified = value
        case .contentRange:
            // `bytes */N` (a 416's) or `bytes A-B/N` (a 206's); `/*` (size unknown) says nothing.
            if bytes.starts(with: Self.bytesPrefix), let slash = bytes.lastIndex(of: UInt8(ascii: "/")) {
                completeSize = Self.digits(bytes[(slash + 1)...])
            }
        }
    }

    /// The seconds since the epoch of an HTTP-date (RFC 9110 §5.6.7): the IMF-fixdate servers send
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and
    /// asctime (`Sun Nov  6 08:49:37 1994`) forms a recipient must read too. A date that is not in the
    /// calendar (31 February) is none.
    public static func httpDate(_ text: String, now: Double = Double(time(nil))) -> Double? {
        let fields = text.split(separator: " ")
        let day: Substring, month: Substring, year: Int, clock: Substring
        switch fields.count {
        case 6 where fields[0].hasSuffix(",") && fields[5] == "GMT" && fields[3].count == 4:
            guard shortDays.contains(fields[0].dropLast()), fields[1].count == 2, let y = number(fields[3])
            else { return nil }
            (day, month, year, clock) = (fields[1], fields[2], y, fields[4])
        case 4 where fields[0].hasSuffix(",") && fields[3] == "GMT":
            let parts = fields[1].split(separator: "-", omittingEmptySubsequences: false)
            guard longDays.contains(fields[0].dropLast()), parts.count == 3, parts[0].count == 2,
                  parts[2].count == 2, let twoDigits = number(parts[2]) else { return nil }
            // More than 50 years ahead reads as the last such year past (RFC 9110 §5.6.7).
            let thisYear = Int(now / 31_556_952) + 1970
            var y = thisYear - thisYear % 100 + twoDigits
            if y > thisYear + 50 { y -= 100 }
            (day, month, year, clock) = (parts[0], parts[1], y, fields[2])
        case 5 where fields[4].count == 4:
            guard shortDays.contains(fields[0]), (1...2).contains(fields[2].count), let y = number(fields[4])
            else { return nil }
            (day, month, year, clock) = (fields[2], fields[1], y, fields[3])
        default:
            return nil
        }
        let time = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard let monthIndex = months.firstIndex(where: { $0 == month }), let dayOfMonth = number(day),
              time.count == 3, time.allSatisfy({ $0.count == 2 }),
              let hour = number(time[0]), let minute = number(time[1]), let second = number(time[2]),
              hour < 24, minute < 60, second < 61, year >= 1900
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(monthIndex)
        parts.tm_mday = Int32(dayOfMonth)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(min(second, 59))  // a leap second reads as the second before
        let seconds = timegm(&parts)
        // timegm makes 31 February into 3 March: a date it had to move is not one.
        guard parts.tm_mday == Int32(dayOfMonth), parts.tm_mon == Int32(monthIndex) else { return nil }
        return Double(seconds)
    }

    /// The IMF-fixdate of `seconds` since the epoch, as `httpDate` reads it.
    public static func imfFixdate(_ seconds: Double) -> String {
        var clock = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&clock, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(shortDays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    private enum Field { case contentType, retryAfter, etag, lastModified, contentRange }
    private static let wanted: [(name: [UInt8], field: Field)] = [
        (Array("content-type".utf8), .contentType), (Array("retry-after".utf8), .retryAfter),
        (Array("etag".utf8), .etag), (Array("last-modified".utf8), .lastModified),
        (Array("content-range".utf8), .contentRange),
    ]
    private static let statusPrefix = Array("HTTP/".utf8)
    private static let bytesPrefix = Array("bytes ".utf8)
    private static let shortDays: [Substring] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDays: [Substring] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                                                "Saturday"]
    private static let months: [Substring] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                              "Nov", "Dec"]

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }

    /// A number of ASCII digits only (no sign, no space), at most 18 of them: more would not fit an Int
    /// and means nothing as seconds or bytes here.
    private static func digits(_ bytes: some Collection<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    private static func number(_ text: Substring) -> Int? { digits(text.utf8) }

    /// ASCII case-insensitive equality with `lower` (a lowercase name).
    private static func equalsIgnoringCase(_ bytes: Slice<UnsafeRawBufferPointer>, _ lower: [UInt8]) -> Bool {
        bytes.count == lower.count && zip(bytes, lower).allSatisfy { byte, want in
            (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == want
        }
    }
}
