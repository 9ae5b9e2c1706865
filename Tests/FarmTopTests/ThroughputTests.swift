import Testing

@testable import FarmTop

/// Rates from successive samples, and the ETA from them.
@Suite struct ThroughputTests {
    @Test func filesPerSecondOverTheWindow() {
        var rates = Throughput()
        rates.sample(finished: 0, time: 100)
        #expect(rates.filesPerSecond == nil, "one sample measures nothing")
        #expect(rates.eta(remaining: 10) == nil)
        rates.sample(finished: 4, time: 102)
        #expect(rates.filesPerSecond == 2)
        #expect(rates.eta(remaining: 10) == 5)
        // Older than the window: forgotten (one sample at its start is kept).
        for second in 103...130 { rates.sample(finished: 4 + (second - 102), time: Double(second)) }
        #expect(rates.filesPerSecond == 1)
        #expect(rates.eta(remaining: 0) == 0)
    }

    @Test func aCountGoingDownStartsAfresh() {
        var rates = Throughput()
        rates.sample(finished: 10, time: 0)
        rates.sample(finished: 20, time: 2)
        rates.sample(finished: 0, time: 3)  // a reload
        #expect(rates.filesPerSecond == nil)
        rates.sample(finished: 3, time: 4)
        #expect(rates.filesPerSecond == 3)
    }

    @Test func bytesCountWhatWorkersMovedSinceFirstSeen() {
        var rates = Throughput()
        rates.sample(finished: 0, time: 0)
        // Resumed at 5 MB: those bytes were fetched before, they do not count.
        rates.observe(job: "a", downloading: true, finished: false, bytes: 5_000_000, time: 0.5)
        rates.observe(job: "a", downloading: true, finished: false, bytes: 6_000_000, time: 1)
        // Downloaded within one sidecar tick: all of it counts.
        rates.observe(job: "b", downloading: false, finished: true, bytes: 500_000, time: 1)
        // Started over from 0 (no ranges): counted from there.
        rates.observe(job: "a", downloading: true, finished: false, bytes: 100_000, time: 1.5)
        rates.observe(job: "a", downloading: false, finished: true, bytes: 600_000, time: 2)
        rates.sample(finished: 2, time: 2)
        #expect(rates.bytes == 1_000_000 + 500_000 + 500_000)
        #expect(rates.bytesPerSecond == 1_000_000)
        // A finished job is forgotten: a reload's fresh download counts from its first sighting.
        rates.observe(job: "a", downloading: true, finished: false, bytes: 50_000, time: 3)
        #expect(rates.bytes == 2_000_000)
    }
}
