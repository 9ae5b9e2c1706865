import FarmConvert
import FarmDedup
import FarmDesired
import FarmHosts
import FarmLists
import FarmMetrics
import FarmRegistry
import FarmSpool
import FarmSystem
import FarmTransfer
import Dispatch
import FoundationEssentials
import Synchronization
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
    /// Transfers at once (SPEC §13); nil: the farm's (`Desired.transfers`), followed as `farm scale`
    /// changes it.
    public var transfers: Int?

    public init() {}

    /// A supervised worker's: what `farm start` asked for, the rest by default.
    public init(_ desired: Desired) {
        lease = desired.lease
        maxSize = desired.maxSize
        convert = desired.convert
        minFree = desired.minFree
        hostLimits = desired.hostLimits
        if let caFile = desired.caFile { self.caFile = caFile }
        // `transfers` stays nil: a supervised worker follows the farm's as `farm scale` changes it.
    }
}

/// One worker process (`farm work`): up to `transfers` jobs at once, each on a thread of its own (a
/// `TransferSlot`: claim a job, download it, store it, hand it to the `Converter`, claim the next), their
/// transfers all on one `TransferPool`, whose connections, DNS cache and TLS sessions they share.
///
/// Besides the slots' threads: the pool's, the converter's, and the `LeaseKeeper`'s, which renews every
/// claim the worker holds (those transferring and those waiting for conversion). The calling thread
/// follows the farm's number of transfers (`farm scale --transfers`) and waits for the slots to end.
public final class Worker: Sendable {
    let spool: Spool
    let options: WorkerOptions
    /// The host's bandwidth cap (`farm limit`), shared with its other workers through the spool.
    private let bandwidth: Bandwidth
    /// The transfer pool, made at the first transfer (`transferPool`): an idle worker never starts libcurl
    /// and OpenSSL, whose start-up made 4 of its 16 MiB resident (RESULTS.md, "a worker at rest").
    private let pool = Locked<TransferPool?>(nil)
    let keeper: LeaseKeeper
    let disk: DiskGate
    let converter: Converter
    /// Delivers done resources of lists that name a folder (SPEC §12).
    let deliveries: Deliveries
    /// Runs the hooks of lists that have one (SPEC §15), beside the transfers.
    let hooks: HookRunner
    /// The WARC files of lists with `--warc` (SPEC §18): none is made before such a list's first record.
    let archive: WARCArchive
    /// Rung when jobs enter the queue: what an idle slot sleeps on (nil: no inotify to be had).
    let bell: QueueBell?
    private let metrics: SpoolMetricsFactory
    /// The robots.txt of the origins recursive lists span to.
    let crawlRobots: CrawlRobots
    /// Per recursive list, the URLs it has as far as this worker read its table (FarmLists' CrawlAppend.swift).
    private let crawlSeen = Locked([String: CrawlSeen]())
    /// The queue's claimer for every slot: one cursor a process, so that its slots never race each other
    /// for a name, nor read a shard each (see Claimer).
    private let claimer: Locked<Claimer>
    /// The claimer's source of records, read outside its lock.
    private let records: TableRecords
    /// How many slots may hold a job now: a slot at or above it hands its job back and waits.
    private let allowed: Atomic<Int>
    /// Set when a slot failed in a way that ends the worker (the spool removed, say): the others end too.
    private let ending = Atomic(false)
    /// The first such failure, which `run` throws once every slot has ended.
    private let failure = Locked<(any Error)?>(nil)

    /// `metrics`: where its counters go (its process's `MetricsRecorder.factory`; by default, nowhere).
    public init(spool: Spool, options: WorkerOptions, metrics: SpoolMetricsFactory = SpoolMetricsFactory(),
                registration: Registration? = nil) throws {
        self.spool = spool
        self.options = options
        self.registration = registration
        let bucket = BandwidthBucket(spool: spool)
        self.bandwidth = Bandwidth { wanted, rate in bucket.take(wanted, rate: rate) }
        self.keeper = LeaseKeeper(spool: spool, lease: options.lease)
        self.deliveries = Deliveries(spool: spool)
        self.hooks = HookRunner(spool: spool, lease: options.lease)
        self.archive = WARCArchive(spool: spool)
        self.bell = QueueBell(spool)
        self.crawlRobots = CrawlRobots(spool: spool)
        self.disk = DiskGate(spool: spool, minFree: options.minFree)
        self.converter = Converter(spool: spool, keeper: keeper, disk: disk, lease: options.lease)
        self.metrics = metrics
        self.allowed = Atomic(0)
        let claimer = Claimer(spool: spool)
        self.records = claimer.records
        self.claimer = Locked(claimer)
    }

    /// The worker's one transfer pool, made by the first slot to ask for it.
    func transferPool() throws(TransferError) -> TransferPool {
        try pool.withLock { (pool: inout TransferPool?) throws(TransferError) -> TransferPool in
            if let pool { return pool }
            let made = try TransferPool(bandwidth: bandwidth)
            pool = made
            return made
        }
    }

    /// The next queued job, now this process's (see `Claimer.claim`), and when it came in a pack the rest of
    /// the pack, for the caller to work in order (or hand back); nil when the queue has none. Only the
    /// rename is taken in turns: the job file is read outside the lock.
    func claim(skippingParked: Bool) throws(SpoolError) -> (Claim, rest: [Claimer.Taken])? {
        while true {
            var taken = try claimer.withLock({ claimer throws(SpoolError) in
                try claimer.take(skippingParked: skippingParked, packs: true)
            })
            guard !taken.isEmpty else { return nil }
            while !taken.isEmpty {
                let first = taken.removeFirst()
                if let claim = spool.load(first, records: records) { return (claim, taken) }
                spool.memberEnded(first)
            }
        }
    }

    /// A job handed back or put ahead by an edit, which comes before the next member of a pack (see
    /// `Claimer.takeReturned`); nil when there is none.
    func claimReturned() throws(SpoolError) -> Claim? {
        while let taken = try claimer.withLock({ claimer throws(SpoolError) in try claimer.takeReturned() }) {
            if let claim = spool.load(taken, records: records) { return claim }
        }
        return nil
    }

    /// The claim of `taken`, the next member of a pack this process holds (`Spool.startMember`): nil when it
    /// is no longer in the pack (an edit or a hold took it, or the pack was reclaimed).
    func claim(member taken: Claimer.Taken) -> Claim? { spool.startMember(taken, records: records) }

    /// Hands back the members of a pack this process will not work (the slot stops).
    func handBack(members: [Claimer.Taken]) {
        for taken in members {
            guard let claim = spool.load(taken, records: records) else {
                spool.memberEnded(taken)
                continue
            }
            do { try spool.release(claim) } catch where error.code == .leaseLost {} catch { spool.log("\(error)") }
        }
    }

    /// How long a worker may go on claiming after a pause began (a transfer sees it within 0.1 s).
    static let pauseLook = 0.05
    /// How often the calling thread reads the farm's number of transfers, and its host's bandwidth cap
    /// (which `farm limit` waits for: see `followLimit`).
    static let transfersLook = 0.5
    static let limitLook = 0.1
    /// Where this worker says the cap it follows.
    private let registration: Registration?

    /// Follows the host's bandwidth cap as set now, and says so in the worker's registry entry once it is in
    /// force, for `farm limit`, which returns only then: a transfer that starts after it returned is capped
    /// from its first byte. `said`: what it said last.
    private func followLimit(_ said: inout Int?) {
        let rate = spool.control.bandwidthLimit() ?? 0
        bandwidth.rate.store(rate, ordering: .relaxed)
        guard rate != said else { return }
        said = rate
        registration?.say(ControlFiles.followingBandwidthLimit(rate))
    }

    /// Set by SIGTERM or SIGINT: hand the jobs back and exit.
    static var stopRequested: Bool { StopSignal.received }

    /// Whether slot `index` must stop: the worker ends, or the farm wants fewer transfers.
    func mustStop(_ index: Int) -> Bool {
        Self.stopRequested || ending.load(ordering: .relaxed) || index >= allowed.load(ordering: .relaxed)
    }

    /// Whether the whole worker ends (stop, or a slot's failure): a slot that is only retired waits instead.
    var isEnding: Bool { Self.stopRequested || ending.load(ordering: .relaxed) }

    /// Works until asked to stop, or until the queue is empty with `exitWhenIdle`. A paused farm
    /// claims nothing new, nor does a worker whose disk is short of its minimum free bytes; it goes
    /// on by itself once there is room.
    public func run() throws {
        StopSignal.install()
        // Superseded WARC records whose drop waited for a file that a worker killed since had open (its file
        // finished by recovery when it died): dropped now (WARCDrops).
        archive.dropSuperseded()
        let slots = DispatchGroup()
        var started = 0
        func follow() {
            let wanted = max(1, options.transfers ?? spool.control.desired().transfers)
            allowed.store(wanted, ordering: .relaxed)
            while started < wanted {
                let slot = TransferSlot(self, index: started, metrics: metrics)
                started += 1
                slots.enter()
                Threads.detach { [self] in
                    defer { slots.leave() }
                    do { try slot.run() } catch { fail(error) }
                }
            }
        }
        var saidLimit: Int?
        followLimit(&saidLimit)
        follow()
        var followed = Clock.monotonic()
        while slots.wait(timeout: .now() + Self.limitLook) == .timedOut {
            followLimit(&saidLimit)
            let now = Clock.monotonic()
            guard now - followed >= Self.transfersLook else { continue }
            followed = now
            if options.transfers == nil && !isEnding { follow() }
        }
        // The converter hands back what still waits for it: the worker exits holding no claim.
        converter.waitUntilIdle()
        // Hooks running are killed and handed back (stopping), or there are none (idle).
        hooks.stop()
        // Its WARC files get their finished names: nothing more is appended to them.
        archive.close()
        // Asked to stop (by the supervisor that saw the spool go, say) in the middle of a job, whose
        // hand-back then found nothing: the reason still deserves its line.
        if spool.isGone { spool.logGone("worker") }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Whether a slot that found nothing to claim may end (with `exitWhenIdle`): nothing claimed by anyone,
    /// nothing waiting for the converter, no job parked for a host, no hook due or running.
    func isIdle() -> Bool {
        converter.isIdle && spool.activeJobs().isEmpty && HostManners(spool).parkedHosts().isEmpty && hooks.isIdle
    }

    /// Ends every slot: the spool is gone.
    func end() { ending.store(true, ordering: .relaxed) }

    /// Ends every slot for `error`, which the worker then exits with.
    func fail(_ error: any Error) {
        failure.withLock { $0 = $0 ?? error }
        ending.store(true, ordering: .relaxed)
    }

    /// Brings back the jobs whose claims expired (one slot does it for the worker).
    func reclaimExpired() -> Int { spool.reclaimExpired(lease: options.lease).count }

}

extension Worker {
    /// This worker's view of the URLs recursive list `id` has, shared by its slots (each append brings it up
    /// to date under the list's edit lock, which the slots take in turn).
    func crawlSeen(ofList id: String) -> CrawlSeen {
        crawlSeen.withLock { known in
            if let seen = known[id] { return seen }
            let seen = CrawlSeen()
            known[id] = seen
            return seen
        }
    }
}
