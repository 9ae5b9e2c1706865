import CoreMetrics
import FarmMetrics
import FarmSystem
import FarmTransfer
import SystemPackage

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
    /// The per-host counters, by scheme://host:port: made once per host, not per transfer.
    private var hosts: [String: (requests: Counter, errors: Counter)] = [:]

    init(_ factory: SpoolMetricsFactory) {
        self.factory = factory
        bytes = Counter(label: FarmMetric.downloadedBytes, factory: factory)
        retries = Counter(label: FarmMetric.retries, factory: factory)
        reclaims = Counter(label: FarmMetric.reclaims, factory: factory)
        seconds = CoreMetrics.Timer(label: FarmMetric.transferSeconds, factory: factory)
    }

    /// Runs `transfer`, one download of `url` into `fd`, and counts it: a request to its host; the bytes
    /// it added to the file, whatever its end; and unless it was stopped by the worker (pause, stop, lost
    /// lease), its seconds, and an error when it failed.
    func transfer(_ url: String, into fd: FileDescriptor,
                  _ transfer: () throws(TransferError) -> DownloadResult) throws(TransferError) -> DownloadResult {
        let host = counters(for: url)
        host.requests.increment()
        let before = (try? fd.status()).map { Int($0.size) } ?? 0
        let start = Clock.monotonic()
        do {
            let result = try transfer()
            seconds.recordSeconds(Clock.monotonic() - start)
            bytes.increment(by: max(0, result.bytes - result.resumedFrom))
            return result
        } catch {
            if error.kind != .aborted {
                seconds.recordSeconds(Clock.monotonic() - start)
                host.errors.increment()
            }
            // Bytes kept for a resume count now; the transfer that resumes counts only the rest.
            let after = (try? fd.status()).map { Int($0.size) } ?? before
            bytes.increment(by: max(0, after - before))
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
        let host = Self.host(of: url)
        if let known = hosts[host] { return known }
        let dimensions = [(FarmMetric.hostLabel, host)]
        let made = (Counter(label: FarmMetric.requests, dimensions: dimensions, factory: factory),
                    Counter(label: FarmMetric.requestErrors, dimensions: dimensions, factory: factory))
        hosts[host] = made
        return made
    }

    /// `scheme://host:port` of `url`, lowercased, with the scheme's port when it names none: a host as
    /// SPEC §10 counts them. Read off the bytes, as `Worker.isHTTP` reads the scheme: once per transfer.
    static func host(of url: String) -> String {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else {
            return "unknown"
        }
        let start = colon + 3
        let end = bytes[start...].firstIndex { "/?#".utf8.contains($0) } ?? bytes.endIndex
        let userEnd = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? start
        let lower = { (byte: UInt8) in byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        let scheme = String(decoding: bytes[..<colon].map(lower), as: UTF8.self)
        let host = bytes[userEnd..<end].map(lower)
        // A port follows the last colon, unless that colon is inside an IPv6 address's brackets.
        let colonAt = host.lastIndex(of: UInt8(ascii: ":")) ?? -1
        let hasPort = colonAt > (host.lastIndex(of: UInt8(ascii: "]")) ?? -1)
        let port = hasPort ? "" : scheme == "https" ? ":443" : ":80"
        return scheme + "://" + String(decoding: host, as: UTF8.self) + port
    }
}
