import FarmSystem
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

    /// What it wrote reads back to the millisecond; what it would not write reads as nothing.
    @Test func readsBackWhatItWrites() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let seconds = (Double.random(in: 0..<4_102_444_800, using: &random) * 1000).rounded(.down) / 1000
            let read = Timestamp.seconds(iso8601: Timestamp.iso8601(seconds))
            // Within the millisecond the writer truncates to (a decimal third place is no exact binary fraction).
            #expect(read.map { abs($0 - seconds) < 0.0011 } == true, "\(seconds): \(String(describing: read))")
        }
        #expect(Timestamp.seconds(iso8601: "1970-01-01T00:01:00Z") == 60)
        for bad in ["", "2026-12-06 18:00:53.127Z", "2026-12-06T18:00:53.127", "2026-12-06T18:0x:53Z", "2026-12-06T18:00:53.12Z"] {
            #expect(Timestamp.seconds(iso8601: bad) == nil, "\(bad)")
        }
    }
}
