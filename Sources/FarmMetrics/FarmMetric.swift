/// Every metric farm exposes (SPEC §10): its name in Prometheus, its help line and, for a histogram, its
/// buckets. The one list: recorders name their counters from here, `MetricsPage` writes them from here.
public enum FarmMetric {
    /// Counted by the processes that see them happen (MetricFiles.swift says how they are summed).
    public static let downloadedBytes = "farm_downloaded_bytes_total"
    public static let retries = "farm_retries_total"
    public static let reclaims = "farm_reclaims_total"
    /// Labelled `host`: scheme://host:port.
    public static let requests = "farm_requests_total"
    public static let requestErrors = "farm_request_errors_total"
    public static let transferSeconds = "farm_transfer_seconds"

    /// Read from the spool whenever metrics are asked for.
    public static let queued = "farm_resources_queued"
    public static let active = "farm_resources_active"
    public static let done = "farm_resources_done"
    /// Labelled `reason`.
    public static let failed = "farm_resources_failed"
    public static let workersDesired = "farm_workers_desired"
    public static let workersRunning = "farm_workers_running"
    public static let paused = "farm_paused"

    /// The label of the per-host counters.
    public static let hostLabel = "host"
    /// The label of the failed resources.
    public static let reasonLabel = "reason"

    /// From a small file fetched on loopback to a large one on a slow link.
    public static let transferBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

    public static let help: [String: String] = [
        downloadedBytes: "Bytes the workers downloaded (each byte once, however often its transfer resumed).",
        retries: "Transfers tried again after a transient failure (5xx, 408, 429, reset, time-out, cut short).",
        reclaims: "Jobs taken back from a worker that died or whose lease expired.",
        requests: "HTTP transfers started, by host (scheme://host:port).",
        requestErrors: "HTTP transfers that ended in an error status or a network error, by host.",
        transferSeconds: "Seconds each HTTP transfer took, whatever its outcome (a paused or stopped one is left out).",
        queued: "Resources waiting in the queue.",
        active: "Resources claimed by a worker now.",
        done: "Resources done.",
        failed: "Resources that failed, by reason (the error up to its first colon).",
        workersDesired: "Workers the farm should run (farm start --workers, farm scale).",
        workersRunning: "Workers running now.",
        paused: "1 while every transfer is paused, else 0.",
    ]

    /// Every metric, in the order a page shows them.
    public static let all = [
        queued, active, done, failed, workersDesired, workersRunning, paused,
        downloadedBytes, retries, reclaims, requests, requestErrors, transferSeconds,
    ]
    /// The counters and histograms recorders write, with the names of their labels.
    public static let counterLabels = [
        downloadedBytes: [], retries: [], reclaims: [], requests: [hostLabel], requestErrors: [hostLabel],
    ]
    public static let histogramLabels: [String: [String]] = [transferSeconds: []]
}
