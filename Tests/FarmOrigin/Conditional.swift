import Glibc

/// Conditional GETs (RFC 9110 §13): `If-None-Match` against the fixture's ETag (weak comparison, a list or
/// `*`), else `If-Modified-Since` against its Last-Modified. Either says "not modified" when the client's
/// copy is current: the origin then answers 304 with no body. Stateless; any thread.
enum Conditional {
    /// Whether the request's validators match `fixture`: a 304. `If-None-Match`, when sent, alone decides.
    static func notModified(ifNoneMatch: String?, ifModifiedSince: String?, fixture: Fixture) -> Bool {
        if let ifNoneMatch {
            let wanted = opaque(fixture.etag)
            return ifNoneMatch.split(separator: ",").contains { tag in
                let tag = tag.trimmingSpaces
                return tag == "*" || opaque(tag) == wanted
            }
        }
        guard let ifModifiedSince, let since = HTTPDate.parse(ifModifiedSince) else { return false }
        return fixture.modified <= since
    }

    /// An entity tag without its weakness mark: what the weak comparison compares.
    private static func opaque(_ tag: some StringProtocol) -> Substring {
        let tag = Substring(tag)
        return tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only form an origin sends (RFC 9110 §5.6.7).
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ seconds: Int) -> String {
        var time = time_t(seconds), parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Seconds since the epoch of an IMF-fixdate; nil for anything else.
    static func parse(_ text: String) -> Int? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT", let day = Int32(fields[1]),
              let month = months.firstIndex(of: String(fields[2])), let year = Int32(fields[3]) else { return nil }
        let clock = fields[4].split(separator: ":").compactMap { Int32($0) }
        guard clock.count == 3 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = clock[0]
        parts.tm_min = clock[1]
        parts.tm_sec = clock[2]
        return Int(timegm(&parts))
    }
}
