import FarmSpool
import FarmMetrics
import FarmStatus
import Prometheus

/// The metrics of a spool in Prometheus' text format (version 0.0.4), as `GET /metrics` answers and
/// `farm metrics` prints: the gauges read from the spool now and the counters of every process summed
/// (FarmMetrics' MetricFiles.swift), written by swift-prometheus from a registry made for this one answer. Stateless;
/// any thread (it reads the spool: keep it off an event loop).
public enum MetricsPage {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The page for `spool` as it is now.
    public static func render(_ spool: Spool) -> [UInt8] {
        let summary = StatusReader.summary(spool)
        let failed = FailureReasons.count(spool, lists: summary.lists.map(\.id))
        return render(summary: summary, failed: failed, counters: MetricFiles.collect(spool))
    }

    /// The page for these gauges (the status, the failed resources by reason) and counters. Each metric
    /// is written by a registry of its own, in the catalogue's order, and its series sorted: one
    /// registry would write them in the order of its dictionaries, different at every call.
    static func render(summary: StatusDocument, failed: [String: Int], counters: MetricValues) -> [UInt8] {
        let lists = summary.lists
        let gauges = [FarmMetric.queued: lists.reduce(0) { $0 + $1.queued },
                      FarmMetric.active: lists.reduce(0) { $0 + $1.active },
                      FarmMetric.done: lists.reduce(0) { $0 + $1.done },
                      FarmMetric.workersDesired: summary.workers.desired,
                      FarmMetric.workersRunning: summary.workers.running,
                      FarmMetric.paused: summary.paused ? 1 : 0]
        var page: [UInt8] = []
        for name in FarmMetric.all {
            let registry = PrometheusCollectorRegistry()
            if let value = gauges[name] { registry.makeGauge(descriptor: descriptor(name)).set(Int64(value)) }
            if name == FarmMetric.failed {
                for (reason, count) in failed {
                    registry.makeGauge(descriptor: descriptor(name), labels: [(FarmMetric.reasonLabel, reason)])
                        .set(Int64(count))
                }
            }
            // Unlabelled counters are shown from the start, at 0, so that a query finds them at once.
            if FarmMetric.counterLabels[name] == [] { _ = registry.makeCounter(descriptor: descriptor(name)) }
            for (series, value) in counters.counters where series.name == name {
                guard isKnown(series, FarmMetric.counterLabels) else { continue }
                counter(registry, series).increment(by: Int64(max(0, value)))
            }
            if name == FarmMetric.transferSeconds {
                _ = histogram(registry, Series(name))
                for (series, summed) in counters.histograms where series.name == name {
                    guard isKnown(series, FarmMetric.histogramLabels) else { continue }
                    var buckets = Buckets(bounds: FarmMetric.transferBuckets)
                    buckets.add(summed)
                    replay(buckets, into: histogram(registry, series))
                }
                page += registry.emitToBuffer()  // one series: its buckets stay in their order
            } else {
                page += sortingSamples(registry.emitToBuffer())
            }
        }
        return page
    }

    /// `text` with its HELP and TYPE lines first, then its samples sorted.
    private static func sortingSamples(_ text: [UInt8]) -> [UInt8] {
        let lines = text.split(separator: UInt8(ascii: "\n"))
        let comments = lines.filter { $0.first == UInt8(ascii: "#") }
        let samples = lines.filter { $0.first != UInt8(ascii: "#") }.sorted { $0.lexicographicallyPrecedes($1) }
        return (comments + samples).flatMap { Array($0) + [UInt8(ascii: "\n")] }
    }

    /// Records into `histogram` as many observations per bucket as `buckets` counted, each at the mean
    /// of that bucket's values (kept inside the bucket against rounding), so that its buckets, count and
    /// sum come out as counted: swift-prometheus' histogram can only record observations.
    private static func replay(_ buckets: Buckets, into histogram: ValueHistogram) {
        for (index, count) in buckets.counts.enumerated() where count > 0 {
            let lower = index > 0 ? buckets.bounds[index - 1].nextUp : -Double.infinity
            let upper = index < buckets.bounds.count ? buckets.bounds[index] : Double.infinity
            let value = min(max(buckets.sums[index] / Double(count), lower), upper)
            for _ in 0..<count { histogram.record(value) }
        }
    }

    /// Only the series farm writes, of their kind and with their labels (`known`: the label names by
    /// metric): a file of another build must not make one name both a counter and a histogram, or both
    /// labelled and not, which the registry refuses.
    private static func isKnown(_ series: Series, _ known: [String: [String]]) -> Bool {
        known[series.name].map { Set($0) == Set(series.labels.keys) } ?? false
    }

    private static func counter(_ registry: PrometheusCollectorRegistry, _ series: Series) -> Counter {
        series.labels.isEmpty ? registry.makeCounter(descriptor: descriptor(series.name))
            : registry.makeCounter(descriptor: descriptor(series.name), labels: series.sortedLabels)
    }

    private static func histogram(_ registry: PrometheusCollectorRegistry, _ series: Series) -> ValueHistogram {
        series.labels.isEmpty
            ? registry.makeValueHistogram(descriptor: descriptor(series.name), buckets: FarmMetric.transferBuckets)
            : registry.makeValueHistogram(descriptor: descriptor(series.name), labels: series.sortedLabels,
                                          buckets: FarmMetric.transferBuckets)
    }

    /// The whole name in `metricName`: the catalogue names metrics whole.
    private static func descriptor(_ name: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: FarmMetric.help[name] ?? "")
    }
}
