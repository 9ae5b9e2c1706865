import CoreMetrics
import FarmJSON
import FarmMetrics
import Testing

/// What a process records through swift-metrics lands in its `SpoolMetricsFactory` as counted, and
/// reads back from the file format unchanged.
@Suite struct FactoryTests {
    @Test func countersAndTimersAddUpInMemory() throws {
        let factory = SpoolMetricsFactory()
        let bytes = Counter(label: FarmMetric.downloadedBytes, factory: factory)
        bytes.increment(by: 1000)
        // A second handle of the same series is the same cell.
        Counter(label: FarmMetric.downloadedBytes, factory: factory).increment(by: 24)
        let host = [(FarmMetric.hostLabel, "http://127.0.0.1:80")]
        Counter(label: FarmMetric.requests, dimensions: host, factory: factory).increment()
        Counter(label: FarmMetric.requests, dimensions: host, factory: factory).increment()
        let seconds = CoreMetrics.Timer(label: FarmMetric.transferSeconds, factory: factory)
        seconds.recordSeconds(0.003)
        seconds.recordSeconds(0.2)
        seconds.recordSeconds(400.0)

        let values = factory.values()
        #expect(values.counters[Series(FarmMetric.downloadedBytes)] == 1024)
        #expect(values.counters[Series(FarmMetric.requests, [FarmMetric.hostLabel: "http://127.0.0.1:80"])] == 2)
        let buckets = try #require(values.histograms[Series(FarmMetric.transferSeconds)])
        #expect(buckets.count == 3)
        #expect(abs(buckets.sum - 400.203) < 1e-9)
        // 0.003 ≤ 0.005, 0.2 ≤ 0.25, 400 past every bound.
        #expect(buckets.counts[0] == 1 && buckets.counts[FarmMetric.transferBuckets.firstIndex(of: 0.25)!] == 1)
        #expect(buckets.counts.last == 1)
    }

    @Test func theFileFormatReadsBackWhatWasWritten() throws {
        let factory = SpoolMetricsFactory()
        Counter(label: FarmMetric.retries, factory: factory).increment(by: 3)
        Counter(label: FarmMetric.requestErrors, dimensions: [(FarmMetric.hostLabel, "https://a.example:443")],
                factory: factory).increment()
        CoreMetrics.Timer(label: FarmMetric.transferSeconds, factory: factory).recordSeconds(1.5)
        let values = factory.values()
        let bytes = JSON.encode(values)
        #expect(JSON.decode(MetricValues.self, from: bytes) == values)
        // Unchanged values encode to the same bytes: the recorder skips rewriting them.
        #expect(JSON.encode(factory.values()) == bytes)
    }

    @Test func bucketsOfOtherBoundsAddByTheirMeans() {
        var mine = Buckets(bounds: [1, 10])
        var theirs = Buckets(bounds: [2, 20])
        theirs.record(1.5)
        theirs.record(1.9)
        theirs.record(15)
        mine.add(theirs)
        #expect(mine.counts == [0, 2, 1], "1.7 (the mean of 1.5 and 1.9) is in (1, 10]; 15 is past 10")
        #expect(mine.count == 3 && abs(mine.sum - 18.4) < 1e-9)
    }
}
