import ArgumentParser
import FarmCommandLine
import FarmMetricsPage

/// `farm metrics`: what `GET /metrics` of `farm serve` answers, printed once (Prometheus' text format).
struct Metrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print the farm's metrics once, in Prometheus' text format (as farm serve's /metrics).",
        discussion: """
            Prints, once, what GET /metrics of farm serve answers: the resources queued, active, done and \
            failed (by reason), the workers wanted and running, whether the farm is paused, and the \
            counters every worker and supervisor keeps (bytes downloaded, retries, reclaims, requests and \
            errors by host, and a histogram of transfer seconds). Counters outlive the processes that kept \
            them: each writes its own file in metrics/ about once a second. metrics changes nothing but \
            that folder, where it may fold the files of processes gone into one.

            The gauges, read from the spool when asked: farm_resources_queued, farm_resources_active, \
            farm_resources_done, farm_resources_failed{reason} (the error up to its first colon, such as HTTP \
            404), farm_workers_desired, farm_workers_running, farm_paused. The counters: \
            farm_downloaded_bytes_total, farm_retries_total, farm_reclaims_total, farm_requests_total{host} \
            and farm_request_errors_total{host} (host: scheme://host:port), and the histogram \
            farm_transfer_seconds. A SIGKILL costs at most the last second of one process's counts. \
            Prometheus scrapes farm serve's address, 127.0.0.1:8771 by default, at /metrics.

            EXAMPLES:
              farm metrics | grep farm_resources_failed
                  The failures by reason.
              farm metrics > farm.prom
                  A snapshot, to keep or to check with promtool check metrics.
            """ + ExitStatus.section([0: "Printed.", 1: ExitStatus.noSpool]))

    @OptionGroup var options: SpoolOptions

    func run() throws {
        let spool = try options.open(create: false)
        print(String(decoding: MetricsPage.render(spool), as: UTF8.self), terminator: "")
    }
}
