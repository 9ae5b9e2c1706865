import FarmSystem

/// A WARC-Date: UTC, to the second (`2026-12-07T01:02:03Z`).
///
/// WARC/1.1 allows fractions of a second; farm writes whole seconds as wget and Heritrix do: the indexes
/// that replay tools build (CDX, `warcio index`, pywb) key records by a 14-digit second, WARC/1.0 readers
/// refuse fractions, and a request and its response carry one date anyway.
public struct WARCDate: Sendable, Equatable, Comparable {
    /// Seconds since the Unix epoch.
    public let seconds: Int

    public init(seconds: Int) { self.seconds = seconds }

    /// The wall clock now.
    public static func now() -> WARCDate { WARCDate(seconds: Int(Clock.wall())) }

    public static func < (a: WARCDate, b: WARCDate) -> Bool { a.seconds < b.seconds }

    /// `2026-12-07T01:02:03Z`, the WARC-Date field.
    public var text: String {
        let (y, m, d, hh, mm, ss) = parts
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(hh, 2)):\(pad(mm, 2)):\(pad(ss, 2))Z"
    }

    /// `20261207010203`, for file names (wget's and Heritrix's 14 digits).
    public var compact: String {
        let (y, m, d, hh, mm, ss) = parts
        return pad(y, 4) + pad(m, 2) + pad(d, 2) + pad(hh, 2) + pad(mm, 2) + pad(ss, 2)
    }

    /// The civil date of `seconds` (Howard Hinnant's days-to-civil, proleptic Gregorian).
    private var parts: (Int, Int, Int, Int, Int, Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60)
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
