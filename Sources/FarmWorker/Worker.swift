import FarmConvert
import FarmMetrics
import FarmSpool
import FarmTransfer
import FarmSystem
import Foundation
import SystemPackage

/// How a worker runs.
public struct WorkerOptions: Sendable {
    /// Seconds a claim stays ours without renewal.
    public var lease: Double = 10
    /// The most one download may weigh.
    public var maxSize: Int = 1 << 30
    public var retry = RetryPolicy()
    /// Seconds without a byte before a transfer counts as timed out (and is retried).
    public var stallTimeout: Double = 30
    /// Exit when the queue is empty instead of waiting for more (tests, one-shot runs).
    public var exitWhenIdle = false
    /// False: no display image and no thumbnail (the benchmark's "conversions off").
    public var convert = true

    public init() {}

    /// A supervised worker's: what `farm start` asked for, the rest by default.
    public init(_ desired: Desired) {
        lease = desired.lease
        maxSize = desired.maxSize
        convert = desired.convert
    }
}

/// One worker process's loop (`farm work`): claim a job, download it, convert it, complete it.
///
/// Single-threaded apart from its `LeaseKeeper`: one claim and one curl handle at a time.
public final class Worker {
    let spool: Spool
    let options: WorkerOptions
    private let claimer: Claimer
    private let handle: EasyHandle
    private let keeper: LeaseKeeper
    private let metrics: WorkerMetrics

    /// `metrics`: where its counters go (its process's `MetricsRecorder.factory`; by default, nowhere).
    public init(spool: Spool, options: WorkerOptions, metrics: SpoolMetricsFactory = SpoolMetricsFactory()) throws {
        self.spool = spool
        self.options = options
        self.claimer = Claimer(spool: spool)
        self.handle = try EasyHandle()
        self.keeper = LeaseKeeper(spool: spool, lease: options.lease)
        self.metrics = WorkerMetrics(metrics)
    }

    /// How long a worker may go on claiming after a pause began (a transfer sees it within 0.1 s).
    static let pauseLook = 0.05

    /// Set by SIGTERM or SIGINT: hand the job back and exit.
    static var stopRequested: Bool { StopSignal.received }

    /// Works until asked to stop, or until the queue is empty with `exitWhenIdle`. A paused farm
    /// claims nothing new.
    public func run() throws {
        StopSignal.install()
        var idle = 0.05
        var pauseLooked = -Double.infinity
        while !Self.stopRequested {
            // The pause mark is looked at every `pauseLook`, not before every claim: a stat of a name
            // that is absent cost 2% of a short job on tmpfs, which keeps no negative entries.
            let now = Clock.monotonic()
            if now - pauseLooked >= Self.pauseLook {
                pauseLooked = now
                if spool.isPaused {
                    Thread.sleep(forTimeInterval: 0.1)
                    continue
                }
            }
            let claim: Claim?
            do { claim = try claimer.claim() } catch {
                // The spool was removed under the farm: nothing is left to work on.
                if spool.isGone {
                    spool.logGone("worker")
                    return
                }
                throw error
            }
            if let claim {
                idle = 0.05
                process(claim)
                continue
            }
            // Idle: the moment to bring back jobs whose owner died unseen.
            let reclaimed = spool.reclaimExpired(lease: options.lease).count
            metrics.reclaimed(reclaimed)
            if reclaimed > 0 { continue }
            if options.exitWhenIdle && spool.activeJobs().isEmpty { return }
            Thread.sleep(forTimeInterval: idle)
            idle = min(idle * 2, 0.5)
        }
        // Asked to stop (by the supervisor that saw the spool go, say) in the middle of a job, whose
        // hand-back then found nothing: the reason still deserves its line.
        if spool.isGone { spool.logGone("worker") }
    }

    func process(_ claim: Claim) {
        keeper.hold(claim)
        defer { keeper.release() }
        var job = JobRun(spool: spool, claim: claim, keeper: keeper)
        job.convert = options.convert
        guard Self.isHTTP(claim.record.url) else {
            job.fail("not an http(s) URL: \(claim.record.url)", partial: nil)
            return
        }
        let partialPath = spool.partialPath(claim.job)
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(partialPath, .readWrite, options: .create, permissions: 0o600) } catch {
            spool.log("cannot open \(partialPath): \(error)")
            try? spool.release(claim)
            return
        }
        defer { fd.closeQuietly() }
        // A stale owner may still be writing these bytes: never write them at the same time.
        guard (try? fd.tryLock()) == true else {
            try? spool.release(claim)
            Thread.sleep(forTimeInterval: 0.2)
            return
        }
        guard let result = download(&job, fd: fd) else { return }
        job.finish(partialPath: partialPath, fd: fd, bytes: result.bytes)
    }

    /// Downloads with retries; nil when the job ended here (failed, or no longer ours).
    private func download(_ job: inout JobRun, fd: FileDescriptor) -> DownloadResult? {
        let request = DownloadRequest(url: job.claim.record.url, maxSize: options.maxSize,
                                      stallTimeout: options.stallTimeout)
        while true {
            do {
                return try metrics.transfer(request.url, into: fd) { () throws(TransferError) in
                    try handle.download(request, into: fd) { [job] progress in job.progress(progress) }
                }
            } catch where error.kind == .aborted {
                if job.keeper.lost { return nil }
                // Paused: keep the bytes and the lease (the keeper renews it), resume from the same byte.
                while job.spool.isPaused && !job.keeper.lost && !Self.stopRequested {
                    Thread.sleep(forTimeInterval: 0.1)
                }
                if job.keeper.lost { return nil }
                if Self.stopRequested { return handBack(job.claim) }
            } catch {
                guard let delay = options.retry.delay(after: error, attempt: job.attempts) else {
                    job.fail(error.message, partial: spool.partialPath(job.claim.job))
                    return nil
                }
                job.attempts += 1
                metrics.retried()
                let until = Clock.monotonic() + delay
                while Clock.monotonic() < until && !Self.stopRequested && !job.keeper.lost {
                    Thread.sleep(forTimeInterval: min(0.1, delay))
                }
                if job.keeper.lost { return nil }
                if Self.stopRequested { return handBack(job.claim) }
            }
        }
    }

    /// Whether `url`'s scheme is http or https, in any case: all a worker fetches. Read off the text
    /// (Foundation's URL parser cost 1% of a short job); curl refuses whatever else is malformed.
    static func isHTTP(_ url: String) -> Bool {
        let scheme = url.utf8.prefix { $0 != UInt8(ascii: ":") }
        guard scheme.count < url.utf8.count else { return false }
        let lower = scheme.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return lower.elementsEqual("http".utf8) || lower.elementsEqual("https".utf8)
    }

    /// Stopping (stop, scale down): the job goes back to the queue; its bytes stay in partial/ for
    /// whoever claims it next.
    private func handBack(_ claim: Claim) -> DownloadResult? {
        do { try spool.release(claim) } catch where error.code == .leaseLost {} catch { spool.log("\(error)") }
        return nil
    }
}
