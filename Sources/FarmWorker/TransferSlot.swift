import FarmConvert
import FarmDedup
import FarmHosts
import FarmLists
import FarmMetrics
import FarmSpool
import FarmSystem
import FarmTransfer
import FoundationEssentials
import SystemPackage

/// One of a worker's transfers at once (SPEC §13), on a thread of its own: claims a job, downloads it on
/// the worker's pool, stores it and hands it to the converter, then claims the next. Each job is a claim
/// of its own, with its own owner name, lease, partial bytes and sidecar, as if its slot were a process.
/// What a slot keeps is its own (a parked host's claimer, a host gate's view, a curl handle, metrics' cache):
/// none is shared between threads (made on the worker's thread, then used on its own alone: hence unchecked).
final class TransferSlot: @unchecked Sendable {
    private let worker: Worker
    /// Its place among the worker's slots: those at or above the farm's transfers wait.
    let index: Int
    /// Takes jobs parked for hosts that refused them, once a host lets this slot in.
    private let parkedClaimer: Claimer
    let gate: HostGate
    /// Its curl handle, made at its first transfer (`Worker.transferPool` says why not sooner).
    private(set) var madeHandle: EasyHandle?
    private let metrics: WorkerMetrics
    /// Each list's request options (SPEC §12) as last read, and when: read again after `requestLook`, so
    /// that a list of the same name added again after a reset is fetched with its own.
    private var requestOptions: [String: (options: RequestOptions?, read: Double)] = [:]
    private static let requestLook = 2.0
    /// This slot's last finished piece of each resource in pieces, by board: a slot that finished one may
    /// take over a slower holder's tail, on the mirror it finished on (PieceRun.swift).
    var finishedPieces: [String: FinishedPiece] = [:]
    /// Boards whose last piece failed on this slot, with when to look at them again: a server that fails
    /// every piece is not asked again at every look (its lead falls back to one transfer meanwhile).
    var failedPieces: [String: Double] = [:]
    /// Seconds between looks for waiting pieces: one stat of pieces/ when it has not changed since it was
    /// listed empty, and every moment a published piece waits is a connection idle.
    static let piecesLook = 0.05
    /// The version of pieces/ when this slot last listed it and found no board (a board made since changes it).
    var noBoardsIn: FileVersion?
    /// The members of the pack this slot claimed last that it has not started, in order (PROTOCOL.md, "Packs").
    /// Locked: a transfer that runs past `packPatience` hands them back from its progress callback.
    private let packRest = Locked<[Claimer.Taken]>([])
    /// How long the rest of a pack waits behind one transfer before it goes back to the queue for other slots.
    static let packPatience = 1.0

    var spool: Spool { worker.spool }
    var options: WorkerOptions { worker.options }
    private var keeper: LeaseKeeper { worker.keeper }
    private var disk: DiskGate { worker.disk }
    private var converter: Converter { worker.converter }
    /// The worker ends, or this slot is one more than the farm wants: its job goes back to the queue.
    var mustStop: Bool { worker.mustStop(index) }

    init(_ worker: Worker, index: Int, metrics: SpoolMetricsFactory) {
        self.worker = worker
        self.index = index
        parkedClaimer = Claimer(spool: worker.spool)
        gate = HostGate(spool: worker.spool, limits: worker.options.hostLimits)
        self.metrics = WorkerMetrics(metrics)
    }

    /// Works until the worker ends, or until the queue is empty with `exitWhenIdle`; while the farm wants
    /// fewer transfers than `index`, waits.
    func run() throws {
        var idle = 0.05
        var pauseLooked = -Double.infinity
        var reclaimLooked = -Double.infinity
        var piecesLooked = -Double.infinity
        defer { handBackPack() }
        while !worker.isEnding {
            if mustStop {
                handBackPack()
                // One more than the farm wants now: waits to be wanted again, or for the work to end.
                // Looked at every 0.1 s: with `exitWhenIdle`, isIdle lists active/ at each look.
                var idleNow = false
                Clock.poll(every: 0.1, unless: { worker.isEnding }) {
                    if !mustStop { return true }
                    idleNow = options.exitWhenIdle && worker.isIdle()
                    return idleNow
                }
                if idleNow { return }
                continue
            }
            // The pause mark is looked at every `pauseLook`, not before every claim: a stat of a name
            // that is absent cost 2% of a short job on tmpfs, which keeps no negative entries.
            let now = Clock.monotonic()
            if now - pauseLooked >= Worker.pauseLook {
                pauseLooked = now
                if spool.control.isPaused {
                    handBackPack()
                    Clock.poll(every: 0.1, unless: { mustStop }) { !spool.control.isPaused }
                    continue
                }
            }
            if !disk.allowsClaim(now: now) {
                // A pause or a stop meanwhile is the loop's to see.
                Clock.poll(every: 0.1, unless: { mustStop || spool.control.isPaused }) {
                    disk.allowsClaim(now: Clock.monotonic())
                }
                continue
            }
            // Pieces of a resource fetched over several connections (SPEC §14) come before new jobs.
            if now - piecesLooked >= Self.piecesLook {
                piecesLooked = now
                if takePieces() { continue }
            }
            let rings = worker.bell?.count ?? 0
            let claim: (Claim, HostPass)?
            do { claim = try nextClaim() } catch {
                // The spool was removed under the farm: nothing is left to work on (the worker says so).
                if spool.isGone {
                    worker.end()
                    return
                }
                throw error
            }
            if let (claim, pass) = claim {
                idle = 0.05
                process(claim, pass)
                continue
            }
            // Idle: the moment to bring back jobs whose owner died unseen, by the first slot alone. Every
            // lease/4 at most: a look stats every claim in active/, and an expiry waits a lease anyway.
            if index == 0 && now - reclaimLooked >= options.lease / 4 {
                reclaimLooked = now
                let reclaimed = worker.reclaimExpired()
                metrics.reclaimed(reclaimed)
                if reclaimed > 0 { continue }
            }
            // Jobs parked for a held or full host are still to do.
            if options.exitWhenIdle && worker.isIdle() { return }
            // A backing-off look, cut short by the queue's bell (QueueBell), not the change feed: an inotify
            // watch on every queue shard would wake each slot of each worker at every add and claim. The
            // back-off stays the ceiling for what no bell rings (another host's add, a host's slot freed).
            if let bell = worker.bell {
                if bell.wait(idle, since: rings) {
                    idle = 0.05
                    continue
                }
            } else {
                Clock.pause(idle, unless: { mustStop })
            }
            // Jobs parked for a host wait for a slot or a token that frees within moments; pieces of a
            // resource whose lead just published them are looked for every `piecesLook`.
            idle = min(idle * 2, gate.isActive ? HostGate.fullRetry : 2 * Self.piecesLook)
        }
    }

    /// The next job this worker may start, with its host's leave: first one parked for a host that
    /// lets it in now, else a new one, parked in turn when its host refuses it. Nil when no job can start.
    private func nextClaim() throws(SpoolError) -> (Claim, HostPass)? {
        let gated = gate.isActive
        if gated {
            for host in HostManners(spool).parkedHosts().shuffled() {
                guard case .granted(let pass) = gate.admit(host) else { continue }
                if let claim = try parkedClaimer.claim(parkedFor: host.raw) { return (claim, pass) }
                pass.release()
            }
        }
        while let claim = try nextOwnClaim(skippingParked: gated) {
            switch gated ? gate.admit(url: claim.record.url) : .granted(HostPass()) {
            case .granted(let pass):
                return (claim, pass)
            case .refused:
                guard let host = HostKey(url: claim.record.url) else { continue }
                park(claim, for: host)
            }
        }
        return nil
    }

    /// The next member of this slot's pack, else a claim off the queue (whose pack's rest it keeps).
    private func nextOwnClaim(skippingParked: Bool) throws(SpoolError) -> Claim? {
        // Jobs handed back or put ahead by an edit come first, as they would off the queue: the pack's others
        // are still queued jobs to a user (SPEC §8).
        if packRest.withLock({ !$0.isEmpty }), let claim = try worker.claimReturned() { return claim }
        while let next = packRest.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            if let claim = worker.claim(member: next) { return claim }
        }
        guard let (claim, rest) = try worker.claim(skippingParked: skippingParked) else { return nil }
        packRest.withLock { $0 = rest }
        return claim
    }

    /// The members of its pack this slot has not started go back to the queue: it stops, the farm pauses, or
    /// a transfer runs long.
    private func handBackPack() { Self.handBack(packRest, of: worker) }

    private static func handBack(_ rest: Locked<[Claimer.Taken]>, of worker: Worker) {
        let members = rest.withLock { members in
            defer { members = [] }
            return members
        }
        if !members.isEmpty { worker.handBack(members: members) }
    }

    /// Its curl handle on the worker's pool, made at the first call.
    func transferHandle() throws(TransferError) -> EasyHandle {
        if let madeHandle { return madeHandle }
        let made = try EasyHandle(pool: worker.transferPool())
        madeHandle = made
        return made
    }

    /// A job's path, in its steps once `run` claimed it: its fetcher, its run (lease kept, what its list asks),
    /// an earlier owner's back-off waited out, its share of a URL other jobs name, its bytes fetched (as
    /// pieces or one transfer), then stored, converted and completed.
    func process(_ claim: Claim, _ pass: HostPass) {
        defer { pass.release() }
        let listOptions = requestOptions(ofList: claim.job.list)
        // The job's scheme, decided once: which fetcher its bytes come by (FarmTransfer's Fetcher.swift).
        let scheme = FetchScheme(of: claim.record.url, allowingFiles: listOptions?.fileURLs == true)
        guard let fetcher = fetcher(for: scheme, of: claim) else { return }
        let kept = keeper.hold(claim)
        var handedOver = false
        defer { if !handedOver { keeper.release(kept) } }
        let tries = spool.triesBefore(claim)
        var job = jobRun(of: kept, listOptions, attempts: tries.attempts + 1)
        guard let scheme else {
            job.fail("not an http(s) URL: \(claim.record.url)", partial: nil)
            return
        }
        // An earlier owner's back-off binds this one: it stopped, parked or died before the wait ended.
        // Never longer than the policy's longest wait: the record's time is another clock's (another
        // host's, or this one's before it was set back).
        if let retryAt = tries.retryAt,
           !waitOut(min(retryAt, Clock.wall() + options.retry.maxDelay * 4), job) { return }
        let partial: URLPartial
        switch share(&job, pass) {
        case .served(let converting):
            handedOver = converting
            return
        case .ended: return
        case .transfer(let held): partial = held
        }
        // Whatever ends the transfer before it is stored leaves the file, with its bytes, to the next job
        // of the URL that takes it.
        defer { partial.close() }
        guard let result = fetch(&job, into: partial, pass, scheme, by: fetcher) else { return }
        handedOver = finish(job, fetched: result, in: partial)
    }

    /// The fetcher of a job's scheme: a copy of this machine's file, else the slot's curl handle. Nil when
    /// there is no libcurl (not installed, say): nothing can be transferred here, so the job goes back to the
    /// queue and the worker ends with the reason, as it did when it made its handle at start.
    private func fetcher(for scheme: FetchScheme?, of claim: Claim) -> (any Fetcher)? {
        if scheme == .file { return FileFetcher() }
        do { return try transferHandle() } catch {
            _ = handBack(claim)
            worker.fail(error)
            return nil
        }
    }

    /// The run of a claimed job: its lease kept, and what its list asks of it (hooks, WARC, the crawl's links
    /// and robots.txt).
    private func jobRun(of kept: LeaseKeeper.Kept, _ listOptions: RequestOptions?, attempts: Int) -> JobRun {
        var job = JobRun(spool: spool, kept: kept, deliveries: worker.deliveries, hookRunner: worker.hooks)
        job.convert = options.convert
        job.hooks = listOptions?.hooks
        job.attempts = attempts
        if let warc = listOptions?.warc {
            job.warc = warc
            job.archive = worker.archive
        }
        if let crawl = listOptions?.crawl {
            let list = kept.claim.job.list
            job.crawl = crawl
            job.crawlSeen = worker.crawlSeen(ofList: list)
            if crawl.options.obeysRobots {
                let robots = worker.crawlRobots, pool = try? worker.transferPool()
                job.robots = { robots.rules(for: $0, ofList: list, request: listOptions, pool: pool) }
            }
        }
        return job
    }

    /// What a job shares with the other jobs of its URL (SharedDownload): their stored bytes, served to it
    /// (`converting`: its claim went to the converter), or the URL's partial, which this job transfers.
    private enum Share {
        case served(converting: Bool)
        case ended
        case transfer(URLPartial)
    }

    private func share(_ job: inout JobRun, _ pass: HostPass) -> Share {
        var shared = SharedDownload(spool: spool, kept: job.kept, lease: options.lease)
        shared.fetchesAnyway = job.warc != nil
        switch shared.start() {
        case .ended: return .ended
        case .stored(let path, let record):
            pass.release()
            return .served(converting: SharedDownload.serve(&job, from: path) { job, kind in
                finish(job, partialPath: path, kind: accepted(kind, ofList: job.claim.job.list), bytes: record.size,
                       etag: record.etag, modified: record.modified, served: true)
            })
        case .transfer(let held): return .transfer(held)
        }
    }

    /// The job's bytes into `partial`, as pieces or one transfer (`download`), and once more from the first
    /// byte when their SHA-256 is not the list's (SPEC §12). Nil when the job ended here or is no longer this
    /// slot's (the bytes are then left to whoever resumes them, or dropped when nobody will).
    private func fetch(_ job: inout JobRun, into partial: URLPartial, _ pass: HostPass, _ scheme: FetchScheme,
                       by fetcher: any Fetcher) -> DownloadResult? {
        let claim = job.claim
        var result = download(&job, partial, pass, scheme, by: fetcher)
        if result.flatMap({ unexpectedDigest($0, claim, partial) }) != nil {
            partial.discardBytes()
            result = download(&job, partial, pass, scheme, by: fetcher)
            if let expected = claim.record.sha256, let got = result.flatMap({ unexpectedDigest($0, claim, partial) }) {
                pass.release()
                job.fail("checksum mismatch: expected \(expected), got \(got)", partial: partial.path)
                return nil
            }
        }
        pass.release()  // the transfer is over: its host's slot goes to the next one
        job.exchange = result?.exchange
        if let why = result?.startedOver, !job.hasNote { job.noteStartedOver(why) }
        // Publishing links the bytes into blobs/ and names them the URL's: not for a claim taken away
        // meanwhile, whose next owner may have published its own (`JobRun.store` says why).
        guard let result, job.kept.isHeld(in: spool) else {
            // Nobody will resume these bytes: the job's own partial (its next run takes its URL's again),
            // or those of a job taken away that ended elsewhere (another host completed it while this one
            // was cut off) or whose resource was removed (SPEC §8).
            if !partial.isURLs || (job.kept.lost && (!Lists(spool).isMember(claim.job) || isFinished(claim.job))) {
                partial.drop()
            }
            return nil
        }
        return result
    }

    /// The fetched bytes published as the URL's (blobs/, urls/), then stored, converted and completed
    /// (`finish`). True when the job's claim went to the converter.
    private func finish(_ job: JobRun, fetched result: DownloadResult, in partial: URLPartial) -> Bool {
        var job = job
        // Told by the bytes this transfer wrote first when it did (no read), else by the file's.
        job.contentType = result.contentType
        let sniffed = result.fileHead.map { Kind.sniff($0) } ?? DisplayImage.sniff(descriptor: partial.fd)
        let kind = accepted(sniffed, ofList: job.claim.job.list)
        SharedDownload.publish(partial, kind: kind, job.claim, spool: spool, result: result)
        return finish(job, partialPath: partial.path, kind: kind, bytes: result.bytes, etag: result.etag,
                      modified: result.modified, served: false)
    }

    /// The SHA-256 of a whole download when it is not the one the job's list names; nil when it is, or
    /// when the list names none. Hashed as the bytes were written, else (a resumed transfer) read back.
    private func unexpectedDigest(_ result: DownloadResult, _ claim: Claim, _ partial: URLPartial) -> String? {
        guard let expected = claim.record.sha256 else { return nil }
        let got = result.sha256 ?? (try? Dedup.digest(of: partial.fd)) ?? "unreadable bytes"
        return got == expected ? nil : got
    }

    /// Stores the whole download at `partialPath` as the job's file, then hands the job to the converter
    /// (true: its claim is the converter's to end) or, with conversions off, completes it here.
    /// `served`: the bytes are the URL's stored ones, linked there for this job (`SharedDownload.serve`).
    /// `kind`: as the list takes it (`accepted`).
    private func finish(_ job: JobRun, partialPath: String, kind: Kind?, bytes: Int, etag: String?,
                        modified: String?, served: Bool) -> Bool {
        switch job.store(partialPath: partialPath, kind: kind) {
        case .stored(let stored):
            let work = Converter.Work(job: job, stored: stored, bytes: bytes, etag: etag, modified: modified,
                                      served: served ? partialPath : nil)
            // Bytes of another kind have nothing to convert: completed here, as with conversions off.
            guard options.convert && stored.kind != .other else {
                converter.finish(work)
                return false
            }
            job.queued(stored, bytes: bytes)
            guard converter.add(work) else { return false }
            // The next claim waits for this job's completion: one claim a transfer (see Converter).
            work.finished.wait()
            return true
        case .ended: break
        case .noRoom: disk.foundFull()
        }
        if served { SharedDownload.servedFrom(partialPath, job) }
        return false
    }

    /// Why a download of no kind farm keeps fails, early or late.
    static let unsupported = "unsupported content"

    /// The kind bytes sniffed as `sniffed` are stored as: theirs, else `other` when list `id` accepts any
    /// (`farm add --accept any`, SPEC §15), else none (the job fails with "unsupported content").
    private func accepted(_ sniffed: Kind?, ofList id: String) -> Kind? {
        sniffed ?? (requestOptions(ofList: id)?.acceptAny == true ? .other : nil)
    }

    /// List `id`'s request options, read at most once per `requestLook`.
    func requestOptions(ofList id: String) -> RequestOptions? {
        let now = Clock.monotonic()
        if let known = requestOptions[id], now - known.read < Self.requestLook { return known.options }
        let options = RequestOptions.decoded(spool.lists.requestOptions(ofList: id))
        requestOptions[id] = (options, now)
        return options
    }

    /// Whether `job` is done or failed for good (by whichever owner).
    private func isFinished(_ job: JobName) -> Bool {
        FileSystem.exists(spool.finishedPath(job, .done)) || FileSystem.exists(spool.finishedPath(job, .failed))
    }

    /// Downloads with retries; nil when the job ended here (failed, or no longer ours). Follows redirects
    /// itself, so that each request goes to its host under that host's leave (SPEC §10: a transfer
    /// redirected to another host counts there): `pass`, the job's, is moved from host to host with them.
    private func download(_ job: inout JobRun, _ partial: URLPartial, _ pass: HostPass, _ scheme: FetchScheme,
                          by handle: any Fetcher) -> DownloadResult? {
        // Pieces are ranges of a web resource; a file of this machine is copied whole.
        if case .web = scheme {
            switch downloadInPieces(&job, partial) {
            case .single: break
            case .whole(let result): return result
            case .ended: return nil
            }
        }
        let fd = partial.fd
        var first = DownloadRequest(url: job.claim.record.url, maxSize: options.maxSize,
                                    stallTimeout: options.stallTimeout, caFile: options.caFile,
                                    options: requestOptions(ofList: job.claim.job.list))
        first.followsRedirects = false
        first.recordsExchange = job.warc != nil
        // Hashed as written with SHA-256 only to check the list's checksum; with a QuickDigest when small
        // enough that download once names them by it at once (FarmDedup's BlobSlots.swift).
        first.hashLimit = job.claim.record.sha256 != nil ? .max : 0
        first.quickDigestLimit = Dedup.hashedAtOnce
        // A kind the list does not keep fails at its first bytes, not after its whole transfer (the same
        // judgement as `accepted`, made early: a body shorter than its head is judged whole, after).
        if requestOptions(ofList: job.claim.job.list)?.acceptAny != true {
            first.refusal = { Kind.sniff($0) == nil ? Self.unsupported : nil }
        }
        // The job's own host, parsed only where a redirect or a hold asks for it (2% of a short job).
        let start = { HostKey(url: first.url) }
        var request = first
        var redirects = 0
        // What ends a wait for a host's slot or token: a stop, the claim lost, or a pause (the job has not
        // started its request: it goes back to the queue, its bytes kept).
        let going = { [job] in !self.mustStop && !job.kept.lost && !job.spool.control.isPaused }
        // A recursive list that obeys robots.txt asks the rules of each request's origin first (fetched by the
        // first request there: SPEC §18, robots.txt before the host's other requests), and spaces that origin's
        // requests by their Crawl-delay, across the farm (its host's token bucket), whatever limits the farm
        // was started with.
        let obeysRobots = job.robots != nil
        while true {
            // Each request asks its host first. With no limit set, no host held (the gate inactive) and no
            // robots.txt to obey the URL is not even parsed.
            if gate.isActive || obeysRobots, let host = HostKey(url: request.url) {
                // The job's own host held since it was admitted (by another transfer of this worker or any):
                // no request starts while it is, so the job waits parked as if it had been refused.
                if request.redirected == nil && gate.isHeld(host) {
                    park(job.claim, for: host)
                    return nil
                }
                // A redirect's host, or the job's own again after one: a slot of its own (see HostGate.move).
                let interval = obeysRobots ? job.crawlDelay(request.url) : nil
                if !gate.move(pass, to: host, while: going) || !gate.awaitToken(host, interval: interval, while: going) {
                    return job.kept.lost ? nil : handBack(job.claim)
                }
            }
            do throws(TransferError) {
                let result = try metrics.transfer(request.url, by: handle) { () throws(TransferError) in
                    let started = Clock.monotonic()
                    return try handle.download(request, into: fd, size: partial.takeSize()) { [job, worker, index, packRest] progress in
                        if Clock.monotonic() - started > Self.packPatience { Self.handBack(packRest, of: worker) }
                        return !worker.mustStop(index) && job.progress(progress)
                    }
                }
                guard let target = result.redirect else {
                    // A recursive list reads a redirected page's links against where it ended (CrawlStep).
                    if request.redirected != nil { job.finalURL = request.url }
                    return result
                }
                job.note(result.exchange)  // a hop, recorded with the job's last exchange (SPEC §18)
                // As curl would have: at most `maxRedirects`, and no credential of the list to another host.
                redirects += 1
                if redirects > DownloadRequest.maxRedirects { throw TransferError(.permanent, "too many redirects") }
                request.url = target
                request.redirected = HostKey(url: target) == start() ? .toSameHost : .toAnotherHost
                continue
            } catch where error.kind == .aborted {
                if job.kept.lost { return nil }
                // Paused: keep the bytes and the lease (the keeper renews it), resume from the same byte.
                Clock.poll(every: 0.1, unless: { job.kept.lost || mustStop }) { !job.spool.control.isPaused }
                if job.kept.lost { return nil }
                if mustStop { return handBack(job.claim) }
            } catch where error.kind == .noSpace {
                // Not the resource's fault: it waits in the queue, its bytes kept and no attempt spent,
                // until there is room again.
                disk.foundFull()
                let bytes = (try? fd.status()).map { Int($0.size) } ?? 0
                spool.log("\(job.claim.job) goes back to the queue with its \(bytes) bytes: \(error.message)")
                return handBack(job.claim)
            } catch {
                job.note(error.exchange)  // the answer the job fails with, unless a retry's replaces it
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
                // the job parked (its bytes kept) while this worker does other hosts' work. The host held is
                // the one that answered (a redirect's, perhaps); the job waits parked for its own.
                if error.retryAfter != nil, error.httpStatus == 429 || error.httpStatus == 503,
                   let host = HostKey(url: request.url), let own = start() {
                    gate.hold(host, until: retryAt)
                    park(job.claim, for: own)
                    return nil
                }
                job.attempts += 1
                guard waitOut(retryAt, job) else { return nil }
                // Tried again from the job's own URL, as a new download: its redirects may have changed.
                request = first
                redirects = 0
            }
        }
    }

    /// Puts the job back in the queue, parked for `host` until it lets a transfer in.
    private func park(_ claim: Claim, for host: HostKey) {
        do { try HostManners(spool).park(claim, for: host) } catch where error.code == .leaseLost {} catch {
            spool.log("\(error)")
        }
    }

    /// Waits until the wall time `retryAt` with the job's claim kept (its lease renewed by the keeper).
    /// False when the job is no longer this worker's to run: lost, or handed back as the worker stops.
    private func waitOut(_ retryAt: Double, _ job: JobRun) -> Bool {
        // Not ended by a pause: the job keeps its claim either way, and a transfer started paused waits.
        Clock.pause(retryAt - Clock.wall(), unless: { mustStop || job.kept.lost })
        if job.kept.lost { return false }
        if mustStop {
            _ = handBack(job.claim)
            return false
        }
        return true
    }

    /// Stopping (stop, scale down): the job goes back to the queue; its bytes stay in partial/ for
    /// whoever claims it next.
    func handBack(_ claim: Claim) -> DownloadResult? {
        do { try spool.release(claim) } catch where error.code == .leaseLost {} catch { spool.log("\(error)") }
        return nil
    }
}
