import FarmConvert
import FarmDedup
import FarmHosts
import FarmLists
import FarmMetrics
import FarmSpool
import FarmSystem
import FarmTransfer
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
    /// Bytes the spool's file system keeps free (`Desired.minFree`; nil: the default for its size).
    public var minFree: Int?
    /// Per-host limits, counted across the farm (`--per-host`, `--rate-per-host`).
    public var hostLimits = HostLimits()
    /// The CA certificates HTTPS servers are verified against (`--ca-file`, else `CURL_CA_BUNDLE` or
    /// `SSL_CERT_FILE` in the environment of `farm start`); nil: the system's.
    public var caFile: String? = DownloadRequest.caFileFromEnvironment

    public init() {}

    /// A supervised worker's: what `farm start` asked for, the rest by default.
    public init(_ desired: Desired) {
        lease = desired.lease
        maxSize = desired.maxSize
        convert = desired.convert
        minFree = desired.minFree
        hostLimits = desired.hostLimits
        if let caFile = desired.caFile { self.caFile = caFile }
    }
}

/// One worker process's loop (`farm work`): claim a job, download it, store it, and hand it to its
/// `Converter`, which converts and completes it while the worker claims the next.
///
/// One thread transfers, one claim and one curl handle at a time; besides it, the converter's thread and
/// the `LeaseKeeper`'s, which renews every claim the worker holds (the one transferring and those waiting
/// for conversion).
public final class Worker {
    let spool: Spool
    let options: WorkerOptions
    private let claimer: Claimer
    /// Takes jobs parked for hosts that refused them, once a host lets this worker in.
    private let parkedClaimer: Claimer
    private let gate: HostGate
    private let handle: EasyHandle
    private let keeper: LeaseKeeper
    private let disk: DiskGate
    private let converter: Converter
    private let metrics: WorkerMetrics

    /// `metrics`: where its counters go (its process's `MetricsRecorder.factory`; by default, nowhere).
    public init(spool: Spool, options: WorkerOptions, metrics: SpoolMetricsFactory = SpoolMetricsFactory()) throws {
        self.spool = spool
        self.options = options
        self.claimer = Claimer(spool: spool)
        self.parkedClaimer = Claimer(spool: spool)
        self.gate = HostGate(spool: spool, limits: options.hostLimits)
        self.handle = try EasyHandle()
        self.keeper = LeaseKeeper(spool: spool, lease: options.lease)
        self.disk = DiskGate(spool: spool, minFree: options.minFree)
        self.converter = Converter(spool: spool, keeper: keeper, disk: disk)
        self.metrics = WorkerMetrics(metrics)
    }

    /// How long a worker may go on claiming after a pause began (a transfer sees it within 0.1 s).
    static let pauseLook = 0.05

    /// Set by SIGTERM or SIGINT: hand the job back and exit.
    static var stopRequested: Bool { StopSignal.received }

    /// Works until asked to stop, or until the queue is empty with `exitWhenIdle`. A paused farm
    /// claims nothing new, nor does a worker whose disk is short of its minimum free bytes; it goes
    /// on by itself once there is room.
    public func run() throws {
        StopSignal.install()
        var idle = 0.05
        var pauseLooked = -Double.infinity
        var reclaimLooked = -Double.infinity
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
            if !disk.allowsClaim(now: now) {
                Thread.sleep(forTimeInterval: 0.1)
                continue
            }
            let claim: (Claim, HostPass)?
            do { claim = try nextClaim() } catch {
                // The spool was removed under the farm: nothing is left to work on.
                if spool.isGone {
                    spool.logGone("worker")
                    return
                }
                throw error
            }
            if let (claim, pass) = claim {
                idle = 0.05
                process(claim, pass)
                continue
            }
            // Idle: the moment to bring back jobs whose owner died unseen. Every lease/4 at most: a look
            // stats every claim in active/, which holds each job waiting for a converter, thousands while
            // conversions trail the transfers, and an expiry waits a lease anyway.
            if now - reclaimLooked >= options.lease / 4 {
                reclaimLooked = now
                let reclaimed = spool.reclaimExpired(lease: options.lease).count
                metrics.reclaimed(reclaimed)
                if reclaimed > 0 { continue }
            }
            // Jobs parked for a held or full host are still to do.
            if options.exitWhenIdle && converter.isIdle && spool.activeJobs().isEmpty
                && HostManners(spool).parkedHosts().isEmpty {
                return
            }
            Thread.sleep(forTimeInterval: idle)
            // Jobs parked for a host wait for a slot or a token that frees within moments.
            idle = min(idle * 2, gate.isActive ? HostGate.fullRetry : 0.5)
        }
        // The converter hands back what still waits for it: the worker exits holding no claim.
        converter.waitUntilIdle()
        // Asked to stop (by the supervisor that saw the spool go, say) in the middle of a job, whose
        // hand-back then found nothing: the reason still deserves its line.
        if spool.isGone { spool.logGone("worker") }
    }

    /// The next job this worker may start, with its host's leave: first one parked for a host that
    /// lets it in now, else a new one, parked in turn when its host refuses it. Nil when no job can start.
    private func nextClaim() throws(SpoolError) -> (Claim, HostPass)? {
        let gated = gate.isActive
        if gated {
            for host in HostManners(spool).parkedHosts().shuffled() {
                guard case .granted(let pass) = gate.admit(host) else { continue }
                if let claim = try parkedClaimer.claim(parkedFor: host) { return (claim, pass) }
                pass.release()
            }
        }
        while let claim = try claimer.claim(skippingParked: gated) {
            switch gated ? gate.admit(url: claim.record.url) : .granted(HostPass()) {
            case .granted(let pass):
                return (claim, pass)
            case .refused:
                guard let host = HostKey(url: claim.record.url) else { continue }
                do { try HostManners(spool).park(claim, for: host) } catch where error.code == .leaseLost {} catch {
                    spool.log("\(error)")
                }
            }
        }
        return nil
    }

    func process(_ claim: Claim, _ pass: HostPass) {
        let kept = keeper.hold(claim)
        var handedOver = false
        defer { if !handedOver { keeper.release(kept) } }
        defer { pass.release() }
        var job = JobRun(spool: spool, kept: kept)
        job.convert = options.convert
        let tries = spool.triesBefore(claim)
        job.attempts = tries.attempts + 1
        guard Self.isHTTP(claim.record.url) else {
            job.fail("not an http(s) URL: \(claim.record.url)", partial: nil)
            return
        }
        // An earlier owner's back-off binds this one: it stopped, parked or died before the wait ended.
        // Never longer than the policy's longest wait: the record's time is another clock's (another
        // host's, or this one's before it was set back).
        if let retryAt = tries.retryAt,
           !waitOut(min(retryAt, Clock.wall() + options.retry.maxDelay * 4), job) { return }
        let partial: URLPartial
        switch SharedDownload(spool: spool, kept: kept, lease: options.lease).start() {
        case .ended: return
        case .stored(let path, let record):
            pass.release()
            handedOver = SharedDownload.serve(&job, from: path) { job, kind in
                finish(job, partialPath: path, kind: kind, bytes: record.size, etag: record.etag,
                       modified: record.modified, served: true)
            }
            return
        case .transfer(let held): partial = held
        }
        // Whatever ends the transfer before it is stored leaves the file, with its bytes, to the next job
        // of the URL that takes it.
        defer { partial.close() }
        let result = download(&job, partial)
        pass.release()  // the transfer is over: its host's slot goes to the next one
        guard let result else {
            // Nobody will resume these bytes: the job's own partial (its next run takes its URL's again),
            // or those of a job taken away that ended elsewhere (another host completed it while this one
            // was cut off) or whose resource was removed (SPEC §8).
            if !partial.isURLs || (kept.lost && (!Lists(spool).isMember(claim.job) || isFinished(claim.job))) {
                partial.drop()
            }
            return
        }
        let kind = DisplayImage.sniff(descriptor: partial.fd)
        SharedDownload.publish(partial, kind: kind, claim, spool: spool, result: result)
        handedOver = finish(job, partialPath: partial.path, kind: kind, bytes: result.bytes, etag: result.etag,
                            modified: result.modified, served: false)
    }

    /// Stores the whole download at `partialPath` as the job's file, then hands the job to the converter
    /// (true: its claim is the converter's to end) or, with conversions off, completes it here.
    /// `served`: the bytes are the URL's stored ones, linked there for this job (`SharedDownload.serve`).
    private func finish(_ job: JobRun, partialPath: String, kind: Kind?, bytes: Int, etag: String?,
                        modified: String?, served: Bool) -> Bool {
        switch job.store(partialPath: partialPath, kind: kind) {
        case .stored(let stored):
            let work = Converter.Work(job: job, stored: stored, bytes: bytes, etag: etag, modified: modified,
                                      served: served ? partialPath : nil)
            guard options.convert else {
                converter.finish(work)
                return false
            }
            job.queued(stored, bytes: bytes)
            return converter.add(work)
        case .ended: break
        case .noRoom: disk.foundFull()
        }
        if served { SharedDownload.servedFrom(partialPath, job) }
        return false
    }

    /// Whether `job` is done or failed for good (by whichever owner).
    private func isFinished(_ job: JobName) -> Bool {
        FileSystem.exists(spool.finishedPath(job, .done)) || FileSystem.exists(spool.finishedPath(job, .failed))
    }

    /// Downloads with retries; nil when the job ended here (failed, or no longer ours).
    private func download(_ job: inout JobRun, _ partial: URLPartial) -> DownloadResult? {
        let fd = partial.fd
        let request = DownloadRequest(url: job.claim.record.url, maxSize: options.maxSize,
                                      stallTimeout: options.stallTimeout, caFile: options.caFile)
        while true {
            do {
                return try metrics.transfer(request.url, by: handle) { () throws(TransferError) in
                    try handle.download(request, into: fd) { [job] progress in job.progress(progress) }
                }
            } catch where error.kind == .aborted {
                if job.kept.lost { return nil }
                // Paused: keep the bytes and the lease (the keeper renews it), resume from the same byte.
                while job.spool.isPaused && !job.kept.lost && !Self.stopRequested {
                    Thread.sleep(forTimeInterval: 0.1)
                }
                if job.kept.lost { return nil }
                if Self.stopRequested { return handBack(job.claim) }
            } catch where error.kind == .noSpace {
                // Not the resource's fault: it waits in the queue, its bytes kept and no attempt spent,
                // until there is room again.
                disk.foundFull()
                let bytes = (try? fd.status()).map { Int($0.size) } ?? 0
                spool.log("\(job.claim.job) goes back to the queue with its \(bytes) bytes: \(error.message)")
                return handBack(job.claim)
            } catch {
                guard let delay = options.retry.delay(after: error, attempt: job.attempts) else {
                    job.fail(error.message, partial: partial.path)
                    return nil
                }
                metrics.retried()
                // On the job file before the wait, so that no owner tries it sooner: not this one, nor the
                // next after a stop, a park or a kill.
                let retryAt = Clock.wall() + delay
                do { try spool.recordBackOff(job.claim, attempts: job.attempts, retryAt: retryAt) } catch
                    where error.code == .leaseLost { return nil } catch { spool.log("\(error)") }
                // The host asked every client to wait: hold it for the whole farm (for the back-off at
                // least, whatever it said: a `Retry-After: 0` is no licence to ask again at once) and leave
                // the job parked (its bytes kept) while this worker does other hosts' work.
                if error.retryAfter != nil, error.httpStatus == 429 || error.httpStatus == 503,
                   let host = HostKey(url: job.claim.record.url) {
                    gate.hold(host, until: retryAt)
                    do {
                        try HostManners(spool).park(job.claim, for: host)
                    } catch where error.code == .leaseLost {
                    } catch {
                        spool.log("\(error)")
                    }
                    return nil
                }
                job.attempts += 1
                guard waitOut(retryAt, job) else { return nil }
            }
        }
    }

    /// Waits until the wall time `retryAt` with the job's claim kept (its lease renewed by the keeper).
    /// False when the job is no longer this worker's to run: lost, or handed back as the worker stops.
    private func waitOut(_ retryAt: Double, _ job: JobRun) -> Bool {
        while !Self.stopRequested && !job.kept.lost {
            let left = retryAt - Clock.wall()
            if left <= 0 { break }
            Thread.sleep(forTimeInterval: min(0.1, left))
        }
        if job.kept.lost { return false }
        if Self.stopRequested {
            _ = handBack(job.claim)
            return false
        }
        return true
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
