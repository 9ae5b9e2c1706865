import ArgumentParser
import FarmSpool
import FarmSystem
import Foundation

/// farm-benchmark: measurements that are too slow or too noisy to be tests. `bin/benchmark` builds it and
/// runs `all`, the default subcommand, which runs the others.
@main
struct Benchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farm-benchmark",
        abstract: "Measure farm where tests must not: `all` (the default) runs every section, the others one each.",
        subcommands: [AllBenchmarks.self, Claims.self, ControlBenchmark.self, WorkerBenchmark.self,
                      RenderBenchmark.self, StatusLag.self, PeersBenchmark.self, RolesBenchmark.self,
                      ClusterBenchmark.self, WindowBenchmark.self, SyncBenchmark.self, PagesBenchmark.self,
                      AddBenchmark.self, FloorBenchmark.self, PiecesBenchmark.self, MirrorBenchmark.self],
        defaultSubcommand: AllBenchmarks.self
    )
}

/// `claims --dir D --jobs 1000,100000,1000000`: for each size, a fresh spool under D, the time to
/// enqueue that many jobs, then the cost of `--samples` claims (and of their completions).
struct Claims: ParsableCommand {
    @OptionGroup var workspace: Workspace
    @Option(help: "Queue sizes, comma-separated.") var jobs = "1000,100000,1000000"
    @Option(help: "Claims measured per size.") var samples = 2000

    func run() throws {
        let sizes = jobs.split(separator: ",").compactMap { Int($0) }
        let base = try workspace.make("claims")
        defer { try? FileManager.default.removeItem(atPath: base) }
        print("size       enqueue   claim p50  claim p99  claim max  complete p50  complete p99   (\(workspace.dir))")
        for size in sizes {
            let root = base + "/\(size)"
            defer { try? FileManager.default.removeItem(atPath: root) }
            let spool = try Spool(root: root)
            let list = ListID.of(name: "bench")
            let jobs = (0..<size).lazy.map {
                NewJob(name: JobName(list: list, index: $0),
                       record: JobRecord(url: "http://127.0.0.1:1/\($0).jpg", id: "r\($0)"))
            }
            let enqueueSeconds = try time { try spool.enqueue(jobs, lists: [ListRecordFile(id: list, bytes: [])]) }
            let claimer = Claimer(spool: spool)
            var claimTimes: [Double] = []
            var completeTimes: [Double] = []
            for _ in 0..<min(samples, size) {
                var claim: Claim?
                claimTimes.append(try time { claim = try claimer.claim() })
                guard let claim else { break }
                completeTimes.append(try time { try spool.complete(claim, .done) })
            }
            print(String(size).padded(10) + String(format: "%.2f s", enqueueSeconds).padded(10)
                + millis(claimTimes, 0.5) + millis(claimTimes, 0.99) + millis(claimTimes, 1.0)
                + millis(completeTimes, 0.5, width: 14) + millis(completeTimes, 0.99, width: 14))
        }
    }

    private func time(_ body: () throws -> Void) rethrows -> Double {
        let start = Clock.monotonic()
        try body()
        return Clock.monotonic() - start
    }

    private func millis(_ values: [Double], _ quantile: Double, width: Int = 11) -> String {
        guard !values.isEmpty else { return "-".padded(width) }
        return String(format: "%.3f ms", values.quantile(quantile) * 1000).padded(width)
    }
}
