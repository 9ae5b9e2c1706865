import FarmSpool

/// Files/s and MB/s as `farm top` measures them, from successive samples over a sliding window.
///
/// Files: the count of finished resources (done + failed) of each summary; its deltas are the rate,
/// and the ETA is what is left at that rate.
///
/// Bytes: summing every sidecar (or every done file's size) each frame would cost O(resources).
/// Instead the session reads only the sidecars of the jobs inotify reported (a worker rewrites its
/// job's progress sidecar at most every 0.25 s; a finished job arrives in done/ or failed/ with its
/// outcome record), and each one credits the bytes it grew since the last time this job was seen.
/// A job first seen downloading starts its count there (it may be resuming bytes fetched long ago);
/// one first seen already past its download (done, unzipping, rendering: it downloaded within one
/// sidecar tick) credits all its bytes. So the bytes rate is what the workers actually moved, give
/// or take the first quarter second of each download.
///
/// A value owned by the session; pure apart from `read`, so it is tested on made-up samples.
struct Throughput: Sendable {
    /// The span the rates are averaged over.
    var window = 10.0

    private struct Sample: Sendable {
        var time: Double
        var finished: Int
        var bytes: Int
    }

    private var samples: [Sample] = []
    /// Bytes credited so far.
    private(set) var bytes = 0
    /// Per job (its raw name): bytes at its last sighting, and when (to forget jobs that went away).
    private var seen: [String: (bytes: Int, time: Double)] = [:]

    /// A sidecar of `job` was read: `downloading` tells an active download from a finished one.
    mutating func observe(job: String, downloading: Bool, finished: Bool, bytes count: Int, time: Double) {
        if let last = seen[job] {
            // Fewer bytes than before: the download started over; count from there.
            if count > last.bytes { bytes += count - last.bytes }
        } else if !downloading {
            bytes += count
        }
        seen[job] = finished ? nil : (count, time)
    }

    /// Records the count of finished resources at `time`. A count that went down (a reload, a
    /// reset) starts the measure afresh.
    mutating func sample(finished: Int, time: Double) {
        if let last = samples.last, finished < last.finished { samples.removeAll() }
        samples.append(Sample(time: time, finished: finished, bytes: bytes))
        // Keep one sample at or before the window's start, so the window is always spanned.
        while samples.count > 2, samples[1].time <= time - window { samples.removeFirst() }
        seen = seen.filter { time - $0.value.time < 120 }
    }

    /// Finished resources per second over the window, or nil before one second was measured.
    var filesPerSecond: Double? { rate(\.finished) }

    /// Bytes per second over the window, or nil before one second was measured.
    var bytesPerSecond: Double? { rate(\.bytes) }

    /// Seconds until `remaining` resources are finished at the current rate; nil when nothing moves.
    func eta(remaining: Int) -> Double? {
        if remaining <= 0 { return 0 }
        guard let rate = filesPerSecond, rate > 0 else { return nil }
        return Double(remaining) / rate
    }

    private func rate(_ value: KeyPath<Sample, Int>) -> Double? {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= 1 else { return nil }
        return Double(last[keyPath: value] - first[keyPath: value]) / (last.time - first.time)
    }
}

extension Throughput {
    /// Reads the sidecars of `jobs` (raw job names, from inotify; one small read each) and observes
    /// them. A sidecar gone meanwhile (a reload) is skipped.
    mutating func read(_ jobs: Set<String>, of spool: Spool, time: Double) {
        for raw in jobs {
            guard let job = JobName(raw), let sidecar = spool.sidecars.last(job) else { continue }
            observe(job: raw, downloading: sidecar.status == .downloading,
                    finished: sidecar.status == .done || sidecar.status == .error, bytes: sidecar.bytes, time: time)
        }
    }
}
