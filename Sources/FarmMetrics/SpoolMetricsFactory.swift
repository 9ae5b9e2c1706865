import CoreMetrics
import FarmSystem
import Synchronization

/// The swift-metrics backend of a farm process: every counter, timer and recorder it makes is a cell in
/// memory, so recording costs an atomic add (a short lock for a histogram) and never a system call.
/// `values()` reads them all, for `MetricsRecorder` to write to the process's file in metrics/.
///
/// Counters add up whole units; timers are histograms of seconds, recorders histograms of their values,
/// both with `FarmMetric.transferBuckets` unless `buckets` names others (floating-point counters and
/// meters are swift-metrics' own, over these). Handlers of the same label and dimensions are one cell.
/// Any thread.
public final class SpoolMetricsFactory: MetricsFactory, Sendable {
    private struct Cells {
        var counters: [Series: CounterCell] = [:]
        var histograms: [Series: HistogramCell] = [:]
    }

    private let cells = Locked(Cells())
    private let buckets: [String: [Double]]

    /// `buckets`: the bounds of histograms by label, where not `FarmMetric.transferBuckets`.
    public init(buckets: [String: [Double]] = [:]) {
        self.buckets = buckets
    }

    /// Everything recorded so far: totals since this factory was made.
    public func values() -> MetricValues {
        let (counters, histograms) = cells.withLock { ($0.counters, $0.histograms) }
        var values = MetricValues()
        for (series, cell) in counters { values.counters[series] = cell.value.load(ordering: .relaxed) }
        for (series, cell) in histograms { values.histograms[series] = cell.buckets.withLock { $0 } }
        return values
    }

    private func counter(_ label: String, _ dimensions: [(String, String)]) -> CounterCell {
        let series = Self.series(label, dimensions)
        return cells.withLock { cells in
            if let cell = cells.counters[series] { return cell }
            let cell = CounterCell()
            cells.counters[series] = cell
            return cell
        }
    }

    private func histogram(_ label: String, _ dimensions: [(String, String)], unit: Double) -> HistogramCell {
        let series = Self.series(label, dimensions)
        let bounds = buckets[label] ?? FarmMetric.transferBuckets
        return cells.withLock { cells in
            if let cell = cells.histograms[series] { return cell }
            let cell = HistogramCell(bounds: bounds, unit: unit)
            cells.histograms[series] = cell
            return cell
        }
    }

    private static func series(_ label: String, _ dimensions: [(String, String)]) -> Series {
        Series(label, Dictionary(dimensions, uniquingKeysWith: { $1 }))
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        counter(label, dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        histogram(label, dimensions, unit: 1)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        histogram(label, dimensions, unit: 1e-9)
    }

    // A counter's total must survive its handle: destroying one forgets nothing.
    public func destroyCounter(_ handler: any CounterHandler) {}
    public func destroyRecorder(_ handler: any RecorderHandler) {}
    public func destroyTimer(_ handler: any TimerHandler) {}
}

/// One counter's total, in whole units.
private final class CounterCell: CounterHandler, Sendable {
    let value = Atomic<Int>(0)

    func increment(by amount: Int64) { value.wrappingAdd(Int(amount), ordering: .relaxed) }
    func reset() { value.store(0, ordering: .relaxed) }
}

/// One histogram; `unit` converts what is recorded (nanoseconds for a timer) to what is kept (seconds).
private final class HistogramCell: TimerHandler, RecorderHandler, Sendable {
    let buckets: Locked<Buckets>
    private let unit: Double

    init(bounds: [Double], unit: Double) {
        buckets = Locked(Buckets(bounds: bounds))
        self.unit = unit
    }

    func recordNanoseconds(_ duration: Int64) { record(Double(duration)) }
    func record(_ value: Int64) { record(Double(value)) }
    func record(_ value: Double) {
        let kept = value * unit
        buckets.withLock { $0.record(kept) }
    }
}
