import ArgumentParser
import FarmMetrics

/// `farm metrics`: what `GET /metrics` of `farm serve` answers, printed once (Prometheus' text format).
struct Metrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print the farm's metrics once, in Prometheus' text format (as farm serve's /metrics).")

    @OptionGroup var options: SpoolOptions

    func run() throws {
        let spool = try options.open(create: false)
        print(String(decoding: MetricsPage.render(spool), as: UTF8.self), terminator: "")
    }
}
