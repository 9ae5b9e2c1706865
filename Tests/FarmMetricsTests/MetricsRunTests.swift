import FarmSpool
import FarmSystem
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// `farm metrics` after real farms ran against the local origin: its numbers are what happened (the
/// resources done and failed, the bytes on disk, the retry, the requests and errors of the host, the
/// reclaim of a killed worker's job), promtool accepts the page, and no process's death loses or doubles
/// a count.
@Suite(.serialized) struct MetricsRunTests {
    @Test func theMetricsTellWhatHappened() throws {
        let farm = try RunningFarm()
        // Five images: the third answers 503 once, then 200; the fifth is not served (404).
        try farm.addImages("Shots", count: 5, width: 96, height: 64, missing: [4])
        farm.origin.fail(1, with: 503, at: "/Shots/2.jpg")
        try farm.start(workers: 2)
        #expect(try farm.farm(["wait", "--timeout", "120"]).status == 1, "one resource fails (404), the rest are done")

        let id = ListID.of(name: "Shots.json")
        let files = (0..<4).compactMap { farm.spool.sidecars.last(JobName(list: id, index: $0))?.file }
        #expect(files.count == 4, "every served image is done with its file")
        let onDisk = try files.reduce(0) { $0 + Int(try FileSystem.stat($1).size) }
        let host = "http://127.0.0.1:\(farm.origin.port)"
        var expected: [String: Double] = [
            "farm_resources_done": 4, "farm_resources_queued": 0, "farm_resources_active": 0,
            #"farm_resources_failed{reason="HTTP 404"}"#: 1,
            "farm_downloaded_bytes_total": Double(onDisk),
            "farm_retries_total": 1, "farm_reclaims_total": 0,
            // Five resources, one of them twice; the 503 and the 404 are its errors.
            #"farm_requests_total{host="\#(host)"}"#: 6, #"farm_request_errors_total{host="\#(host)"}"#: 2,
            "farm_transfer_seconds_count": 6, #"farm_transfer_seconds_bucket{le="+Inf"}"#: 6,
            "farm_workers_desired": 2, "farm_paused": 0,
        ]
        // Workers write what they counted within a second of counting it.
        var page = ""
        #expect(poll(timeout: 30, every: 0.2) {
            page = (try? farm.must(["metrics"])) ?? ""
            return Self.mismatches(page, expected).isEmpty
        }, "\(Self.mismatches(page, expected))\n\(page)")
        let check = try Prometheus.check(page)
        #expect(check.status == 0, "promtool check metrics: \(check.output)\n\(page)")

        // A worker killed with SIGKILL: what it had written still counts, once.
        let worker = try #require(farm.pids(.worker).first)
        kill(worker, SIGKILL)
        #expect(poll(timeout: 30) { isGone(worker) && !farm.pids(.worker).contains(worker) })
        page = try farm.must(["metrics"])
        #expect(Self.mismatches(page, expected).isEmpty, "\(Self.mismatches(page, expected))\n\(page)")

        // Stopped: every process's file is folded into one, and the counts are the same.
        try farm.must(["stop"])
        page = try farm.must(["metrics"])
        expected["farm_workers_running"] = 0
        #expect(Self.mismatches(page, expected).isEmpty, "\(Self.mismatches(page, expected))\n\(page)")
        #expect(Set(FileSystem.names(farm.spool.metrics)) == ["fold.lock", "folded.json"])
    }

    @Test func aKilledWorkersJobIsCountedAsReclaimed() throws {
        let farm = try RunningFarm()
        try farm.addImages("Slow", count: 1, noisy: true, rate: 40_000)
        try farm.start(workers: 1)
        var owner: pid_t?
        #expect(poll(timeout: 30) {
            owner = farm.spool.activeJobs().first?.owner.pid
            return owner != nil
        }, "the worker never claimed the job")
        kill(try #require(owner), SIGKILL)
        // The supervisor sees its worker die and hands the job back at once: a reclaim.
        var page = ""
        #expect(poll(timeout: 30, every: 0.2) {
            page = (try? farm.must(["metrics"])) ?? ""
            return Prometheus.samples(page)["farm_reclaims_total"] == 1
        }, "\(page)")
        #expect(try farm.farm(["wait", "--timeout", "120"]).status == 0)
        let file = try #require(farm.spool.sidecars.last(JobName(list: ListID.of(name: "Slow.json"), index: 0))?.file)
        let onDisk = Double(try FileSystem.stat(file).size)
        // What the killed worker received since its last write is lost to the count, never counted twice.
        #expect(poll(timeout: 10, every: 0.2) {
            page = (try? farm.must(["metrics"])) ?? ""
            return Prometheus.samples(page)["farm_resources_done"] == 1
                && (Prometheus.samples(page)["farm_downloaded_bytes_total"] ?? 0) > 0
        }, "\(page)")
        #expect((Prometheus.samples(page)["farm_downloaded_bytes_total"] ?? .infinity) <= onDisk, "\(page)")
    }

    /// The series of `expected` whose value in `page` differs, each as `series: got, want`.
    static func mismatches(_ page: String, _ expected: [String: Double]) -> [String] {
        let samples = Prometheus.samples(page)
        return expected.sorted { $0.key < $1.key }.compactMap { series, want in
            samples[series] == want ? nil : "\(series): \(samples[series].map { "\($0)" } ?? "absent"), want \(want)"
        }
    }
}
