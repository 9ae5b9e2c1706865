import FarmStatus
import Glibc

/// Numbers as `farm top` shows them: compact, fixed-ish widths, ASCII. Stateless.
enum Format {
    /// A bar of exactly `width` cells, brackets included: `[#####.....]`.
    static func bar(_ progress: Double, width: Int) -> String {
        guard width >= 3 else { return String(repeating: "#", count: max(0, width)) }
        return StatusText.bar(progress.isFinite ? progress : 0, width: width - 2)
    }

    /// Whole percent, "0%" to "100%" (never 100% before the end).
    static func percent(_ progress: Double) -> String {
        guard progress.isFinite else { return "0%" }
        return String(Int((min(1, max(0, progress)) * 100).rounded(.down))) + "%"
    }

    /// Bytes in SI units, as transfer rates are usually given: "512 B", "1.5 kB", "12.3 MB", "2.0 GB".
    static func bytes(_ count: Int) -> String {
        let units = ["B", "kB", "MB", "GB", "TB", "PB"]
        var value = Double(max(0, count)), unit = 0
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(Int(value)) B" : decimal(value) + " " + units[unit]
    }

    /// A rate with one decimal, or "--" while it is unknown.
    static func rate(_ perSecond: Double?, unit: String) -> String {
        guard let perSecond, perSecond.isFinite else { return "-- " + unit }
        return decimal(max(0, perSecond)) + " " + unit
    }

    /// "1.5 MB/s", or "-- MB/s" while unknown.
    static func byteRate(_ perSecond: Double?) -> String {
        guard let perSecond, perSecond.isFinite else { return "-- MB/s" }
        return decimal(max(0, perSecond) / 1e6) + " MB/s"
    }

    /// Time left: "--" when unknown, else "45s", "3m05s", "2h07m", "3d04h", ">99d".
    static func eta(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return "--" }
        let total = Int(seconds.rounded(.up))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m" + two(total % 60) + "s" }
        if total < 86400 { return "\(total / 3600)h" + two(total % 3600 / 60) + "m" }
        if total < 100 * 86400 { return "\(total / 86400)d" + two(total % 86400 / 3600) + "h" }
        return ">99d"
    }

    /// How long ago, in one unit: "now", "12s", "5m", "3h", "2d".
    static func age(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "-" }
        let total = Int(max(0, seconds))
        if total < 1 { return "now" }
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m" }
        if total < 86400 { return "\(total / 3600)h" }
        return "\(total / 86400)d"
    }

    private static func decimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
