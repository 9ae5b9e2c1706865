import CoreMetrics
import FarmHosts
import FarmMetrics
import FarmSpool
import FarmSystem
import FarmTransfer

/// What a worker counts (SPEC §10), through swift-metrics into its process's `SpoolMetricsFactory`: the
/// bytes each transfer wrote, retries and reclaims, and per host the transfers, their errors and the
/// seconds each took. In memory only: the process's `MetricsRecorder` writes them out.
/// Worker thread only (the handlers themselves take any thread).
final class WorkerMetrics {
    private let factory: SpoolMetricsFactory
    private let bytes: Counter
    private let retries: Counter
    private let reclaims: Counter
    private let seconds: CoreMetrics.Timer
    /// The per-host counters, by the URL's text up to its path (`http://Host:80`, as written): made
    /// once per host, not per transfer, and found without parsing the URL again.
    private var hosts: [Substring: (requests: Counter, errors: Counter)] = [:]

    init(_ factory: SpoolMetricsFactory) {
        self.factory = factory
        bytes = Counter(label: FarmMetric.downloadedBytes, factory: factory)
        retries = Counter(label: FarmMetric.retries, factory: factory)
        reclaims = Counter(label: FarmMetric.reclaims, factory: factory)
        seconds = CoreMetrics.Timer(label: FarmMetric.transferSeconds, factory: factory)
    }

    /// Runs `transfer`, one download of `url` by `handle`, and counts it: a request to its host; the bytes
    /// it added to the file, whatever its end; and unless it was stopped by the worker (pause, stop, lost
    /// lease), its seconds, and an error when it failed.
    func transfer(_ url: String, by handle: any Fetcher,
                  _ transfer: () throws(TransferError) -> DownloadResult) throws(TransferError) -> DownloadResult {
        let host = counters(for: url)
        host.requests.increment()
        let start = Clock.monotonic()
        do {
            let result = try transfer()
            // A redirect's answer is a request to its host, not a transfer whose time counts.
            if result.redirect == nil { seconds.recordSeconds(Clock.monotonic() - start) }
            bytes.increment(by: handle.lastWritten)
            return result
        } catch {
            if error.kind != .aborted {
                seconds.recordSeconds(Clock.monotonic() - start)
                host.errors.increment()
            }
            // Bytes kept for a resume count now; the transfer that resumes counts only the rest.
            bytes.increment(by: handle.lastWritten)
            throw error
        }
    }

    /// A transient failure is tried again.
    func retried() { retries.increment() }

    /// This worker sent `count` expired claims back to the queue.
    func reclaimed(_ count: Int) {
        if count > 0 { reclaims.increment(by: count) }
    }

    private func counters(for url: String) -> (requests: Counter, errors: Counter) {
        let origin = Self.origin(of: url)
        if let known = hosts[origin] { return known }
        let dimensions = [(FarmMetric.hostLabel, Self.host(of: url))]
        let made = (Counter(label: FarmMetric.requests, dimensions: dimensions, factory: factory),
                    Counter(label: FarmMetric.requestErrors, dimensions: dimensions, factory: factory))
        hosts[origin] = made
        return made
    }

    /// `url` up to where its path, query or fragment begins: the same text for every URL of one host as
    /// one list spells it.
    private static func origin(of url: String) -> Substring {
        let utf8 = url.utf8
        guard let scheme = utf8.firstIndex(of: UInt8(ascii: ":")) else { return url[...] }
        let authority = utf8.index(scheme, offsetBy: 3, limitedBy: utf8.endIndex) ?? utf8.endIndex
        let end = utf8[authority...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        return url[..<(end ?? utf8.endIndex)]
    }

    /// `scheme://host:port` of `url`: the host the per-host limits count it against (SPEC §10).
    static func host(of url: String) -> String {
        HostKey(url: url)?.description ?? "unknown"
    }
}
