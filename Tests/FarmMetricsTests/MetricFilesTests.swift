import CoreMetrics
import FarmJSON
import FarmMetrics
import FarmRegistry
import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Testing

/// The counters of many processes summed from metrics/: the living as they last wrote them, the dead
/// folded into one file, each exactly once whoever reads, however often, and wherever a fold was cut.
@Suite struct MetricFilesTests {
    private static let retries = Series(FarmMetric.retries)

    @Test func theLivingAreReadAndTheDeadFoldedOnce() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        let first = try spool.registry.register(.worker), second = try spool.registry.register(.worker)
        defer { second.end() }
        let a = MetricsRecorder(spool: spool, registration: first)
        let b = MetricsRecorder(spool: spool, registration: second)
        Counter(label: FarmMetric.retries, factory: a.factory).increment(by: 2)
        Counter(label: FarmMetric.retries, factory: b.factory).increment(by: 5)
        a.flushIfDue()
        b.flushIfDue()
        #expect(MetricFiles.collect(spool).counters[Self.retries] == 7)

        // `a` counts once more and ends: its last write is folded in, once, whoever reads and how often.
        Counter(label: FarmMetric.retries, factory: a.factory).increment()
        a.finish()
        first.end()
        for _ in 0..<3 { #expect(MetricFiles.collect(spool).counters[Self.retries] == 8) }
        #expect(Set(FileSystem.names(spool.metrics)) == ["fold.lock", "folded.json", second.name + ".json"])

        // `b` counts on: written within a second of the last write, not before.
        Counter(label: FarmMetric.retries, factory: b.factory).increment(by: 10)
        b.flushIfDue()
        #expect(MetricFiles.collect(spool).counters[Self.retries] == 8)
        Thread.sleep(forTimeInterval: MetricsRecorder.interval)
        b.flushIfDue()
        #expect(MetricFiles.collect(spool).counters[Self.retries] == 18)
        // The supervisor's fold, while nobody else folds, changes no sum.
        MetricFiles.foldIfFree(spool)
        #expect(MetricFiles.collect(spool).counters[Self.retries] == 18)
    }

    @Test func aFoldCutAnywhereStillCountsEachFileOnce() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        // Files of processes that are gone: no entry in procs/ by their names.
        let folded = "worker.999999.0badc0de", unfolded = "worker.999998.0badc0de"
        try write(retries: 4, to: spool.metrics + "/\(folded).json")
        // A fold killed after its commit, before it deleted the file: folded.json has the file already.
        let totals = String(decoding: JSON.encode(values(retries: 4)), as: UTF8.self)
        try Data(#"{"sources":["\#(folded)"],"totals":\#(totals)}"#.utf8)
            .write(to: URL(fileURLWithPath: spool.metrics + "/folded.json"))
        // A fold killed before its commit: the file alone. And a writer killed before its rename.
        try write(retries: 1, to: spool.metrics + "/\(unfolded).json")
        try write(retries: 100, to: spool.metrics + "/\(unfolded).json.tmp-999998")

        for _ in 0..<2 { #expect(MetricFiles.collect(spool).counters[Self.retries] == 5) }
        #expect(Set(FileSystem.names(spool.metrics)) == ["fold.lock", "folded.json"])
    }

    @Test func aForeignFileIsSetAsideAndCountsNothing() throws {
        let dir = TemporaryDirectory()
        let spool = try Spool(root: dir.appending("spool"))
        try Data("not metrics".utf8).write(to: URL(fileURLWithPath: spool.metrics + "/worker.1.00000000.json"))
        #expect(MetricFiles.collect(spool).counters.isEmpty)
        #expect(!FileSystem.exists(spool.metrics + "/worker.1.00000000.json"))
        #expect(FileSystem.names(spool.corrupt).contains { $0.hasPrefix("worker.1.00000000.json") })
    }

    private func values(retries: Int) -> MetricValues {
        var values = MetricValues()
        values.counters[Self.retries] = retries
        return values
    }

    private func write(retries: Int, to path: String) throws {
        try Data(JSON.encode(values(retries: retries))).write(to: URL(fileURLWithPath: path))
    }
}
