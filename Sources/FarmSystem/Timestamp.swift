import Glibc

/// ISO 8601 times with milliseconds in UTC, as the status document and the log write them.
public enum Timestamp {
    /// Written digit by digit into one buffer: every job stamps its outcome, and padding String
    /// pieces cost as much as the rest of its completion's Swift (perf).
    public static func iso8601(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        let millis = Int32((seconds - seconds.rounded(.down)) * 1000)
        let fields: [(value: Int32, width: Int, then: UInt8)] = [
            (parts.tm_year + 1900, 4, UInt8(ascii: "-")), (parts.tm_mon + 1, 2, UInt8(ascii: "-")),
            (parts.tm_mday, 2, UInt8(ascii: "T")), (parts.tm_hour, 2, UInt8(ascii: ":")),
            (parts.tm_min, 2, UInt8(ascii: ":")), (parts.tm_sec, 2, UInt8(ascii: ".")), (millis, 3, UInt8(ascii: "Z")),
        ]
        return String(unsafeUninitializedCapacity: 24) { text in
            var at = 0
            for field in fields {
                var value = Int(field.value)
                for place in stride(from: field.width - 1, through: 0, by: -1) {
                    text[at + place] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                text[at + field.width] = field.then
                at += field.width + 1
            }
            return at
        }
    }

    /// The seconds since the epoch of a time `iso8601` wrote (`2026-12-06T18:00:53.127Z`, the milliseconds
    /// optional); nil for any other text.
    public static func seconds(iso8601 text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20 || bytes.count == 24, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ from: Int, _ count: Int) -> Int32? {
            var value: Int32 = 0
            for byte in bytes[from..<from + count] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int32(byte - 48)
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1.asciiValue }),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
              let minute = number(14, 2), let second = number(17, 2) else { return nil }
        var millis: Int32 = 0
        if bytes.count == 24 {
            guard bytes[19] == UInt8(ascii: "."), let value = number(20, 3) else { return nil }
            millis = value
        }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Double(timegm(&parts)) + Double(millis) / 1000
    }
}
