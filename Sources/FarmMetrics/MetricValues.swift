import FarmJSON

/// One series of a metric: its name and its labels (`["host": "http://127.0.0.1:8080"]`, or none). A value.
public struct Series: Hashable, Sendable {
    public let name: String
    public let labels: [String: String]

    public init(_ name: String, _ labels: [String: String] = [:]) {
        self.name = name
        self.labels = labels
    }

    /// The labels in the order they are written: by name.
    public var sortedLabels: [(String, String)] { labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
}

/// A histogram's buckets: how many observations fell in each, and their sum per bucket, so that buckets,
/// count and sum can all be rebuilt exactly from them (see `MetricsPage`). Bucket `i` holds the values
/// in (bounds[i-1], bounds[i]]; the last one, past every bound, is +Inf's. A value.
public struct Buckets: Equatable, Sendable {
    public private(set) var bounds: [Double]
    public private(set) var counts: [Int]
    public private(set) var sums: [Double]

    public init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count + 1)
        sums = Array(repeating: 0, count: bounds.count + 1)
    }

    public var count: Int { counts.reduce(0, +) }
    public var sum: Double { sums.reduce(0, +) }

    /// Adds one observation.
    public mutating func record(_ value: Double) {
        let index = bounds.firstIndex { value <= $0 } ?? bounds.count
        counts[index] += 1
        sums[index] += value
    }

    /// Adds every observation of `other`: bucket by bucket when the bounds are the same, else each
    /// bucket of `other` into the bucket of its mean (a file written by a build with other bounds).
    public mutating func add(_ other: Buckets) {
        if other.bounds == bounds {
            for index in counts.indices {
                counts[index] += other.counts[index]
                sums[index] += other.sums[index]
            }
            return
        }
        for (count, sum) in zip(other.counts, other.sums) where count > 0 {
            let mean = sum / Double(count)
            let index = bounds.firstIndex { mean <= $0 } ?? bounds.count
            counts[index] += count
            sums[index] += sum
        }
    }
}

/// Counters and histograms by series: what one process counted (its file in metrics/), or the sum of
/// many. A value.
public struct MetricValues: Equatable, Sendable {
    public var counters: [Series: Int] = [:]
    public var histograms: [Series: Buckets] = [:]

    public init() {}

    public var isEmpty: Bool { counters.isEmpty && histograms.isEmpty }

    /// Adds `other`'s counts to these.
    public mutating func add(_ other: MetricValues) {
        for (series, value) in other.counters { counters[series, default: 0] += value }
        for (series, buckets) in other.histograms {
            if histograms[series] == nil {
                histograms[series] = buckets
            } else {
                histograms[series]!.add(buckets)
            }
        }
    }
}

/// `{"counters": [{"labels": {…}, "name": …, "value": N}], "histograms": [{"bounds": […], "counts": […],
/// "labels": {…}, "name": …, "sums": […]}]}`, series in a stable order, so that unchanged values
/// encode to the same bytes (the recorder skips writing those).
extension MetricValues: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("counters")
        json.beginArray()
        for (series, value) in counters.sorted(by: { Self.precedes($0.key, $1.key) }) {
            json.beginObject()
            Self.write(series, to: &json)
            json.member("value", value)
            json.endObject()
        }
        json.endArray()
        json.key("histograms")
        json.beginArray()
        for (series, buckets) in histograms.sorted(by: { Self.precedes($0.key, $1.key) }) {
            json.beginObject()
            json.member("bounds", buckets.bounds)
            json.member("counts", buckets.counts)
            Self.write(series, to: &json)
            json.member("sums", buckets.sums)
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    /// The members `labels` and `name` of a series' object.
    private static func write(_ series: Series, to json: inout JSONWriter) {
        json.key("labels")
        json.beginObject()
        for (name, value) in series.sortedLabels {
            json.key(name)
            json.string(value)
        }
        json.endObject()
        json.member("name", series.name)
    }

    private static func precedes(_ a: Series, _ b: Series) -> Bool {
        a.name != b.name ? a.name < b.name : a.sortedLabels.lexicographicallyPrecedes(b.sortedLabels) { $0 < $1 }
    }
}

extension MetricValues: JSONReadable {
    public init(json: JSONValue) throws(JSONMismatch) {
        for entry in try json.decode("counters") as [JSONValue] {
            counters[try Self.series(entry), default: 0] += try entry.decode("value") as Int
        }
        for entry in try json.decode("histograms") as [JSONValue] {
            let bounds: [Double] = try entry.decode("bounds")
            let counts: [Int] = try entry.decode("counts"), sums: [Double] = try entry.decode("sums")
            guard counts.count == bounds.count + 1, sums.count == counts.count else {
                throw JSONMismatch("a histogram needs one count and one sum per bound, and one more")
            }
            var buckets = Buckets(bounds: bounds)
            buckets.set(counts: counts, sums: sums)
            histograms[try Self.series(entry), default: Buckets(bounds: bounds)].add(buckets)
        }
    }

    private static func series(_ entry: JSONValue) throws(JSONMismatch) -> Series {
        guard case .object(let members)? = entry["labels"] else { throw JSONMismatch("no \"labels\" object") }
        var labels: [String: String] = [:]
        for member in members {
            guard case .string(let value) = member.value else { throw JSONMismatch("a label that is not a string") }
            labels[member.key] = value
        }
        return Series(try entry.decode("name"), labels)
    }
}

extension Buckets {
    /// The counts and sums as read from a file (checked by the caller to have one per bucket).
    fileprivate mutating func set(counts: [Int], sums: [Double]) {
        self.counts = counts
        self.sums = sums
    }
}
