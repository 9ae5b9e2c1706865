import FarmSpool
import Foundation
import Testing

@Suite struct TimestampTests {
    /// Against Foundation's formatter (whole seconds) plus the milliseconds, truncated as before.
    @Test func writesWhatAFormatterWrites() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        var random = SystemRandomNumberGenerator()
        let samples = [0, 0.999, 59.5, 951_782_400.007, 1_795_341_600.12, 4_102_444_799.999]
            + (0..<2000).map { _ in Double.random(in: 0..<4_102_444_800, using: &random) }
        for seconds in samples {
            let whole = seconds.rounded(.down)
            let millis = Int((seconds - whole) * 1000)
            let expected = formatter.string(from: Date(timeIntervalSince1970: whole))
                + "." + String(format: "%03d", millis) + "Z"
            #expect(Timestamp.iso8601(seconds) == expected, "\(seconds)")
        }
    }
}
