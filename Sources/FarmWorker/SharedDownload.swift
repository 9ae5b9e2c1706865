import FarmConvert
import FarmDedup
import FarmLists
import FarmSpool
import FarmSystem
import FarmTransfer
import FoundationEssentials
import SystemPackage

/// Download once (SPEC §7; FarmDedup's protocol), the worker's side: before its transfer a
/// job is served from its URL's stored result, or becomes the one transfer of its URL, or waits for it.
struct SharedDownload {
    /// How often a waiter looks at the lock of the URL another worker transfers.
    static let poll = 0.05

    enum Start {
        /// The URL's stored bytes, linked at `path` in tmp/ for the job to store as its download, and
        /// their record (size, validators).
        case stored(path: String, record: URLRecord)
        /// This job transfers the URL into the partial it holds: the URL's (its lock), or its own when
        /// the URL's holder is stuck.
        case transfer(URLPartial)
        /// The job is no longer this worker's (lost, handed back as the worker stops, or its partial
        /// cannot be made).
        case ended
    }

    let spool: Spool
    let kept: LeaseKeeper.Kept
    let lease: Double
    var claim: Claim { kept.claim }
    /// Set for a job of a list with `--warc` (SPEC §18): it fetches as a fresh job does, never served from
    /// stored bytes, because its record is its own response. Else a redo of a job killed after it published
    /// its bytes and before it recorded them would be served, and its URL never recorded.
    var fetchesAnyway = false

    /// Where the job starts from. A fresh job skips the stored result and resumes only its own bytes. A
    /// waiter keeps the host slot it was let in with (per-host limits): the holder has one of its own, so
    /// waiting never blocks the transfer it waits for.
    ///
    /// The URL's lock is taken before its record is looked for: a URL seen for the first time (most of a
    /// new list's) then costs one look-up that finds nothing, not two (one before the lock, and one after
    /// it, in case the holder published in between). A job that finds the lock held looks for the record
    /// before it waits, so a stored result is served at once.
    ///
    /// A job marked own, in its first claim, makes the URL's partial and transfers with none of this; a job
    /// marked `after` another waits while that one is claimed, and is served from its output when it is done
    /// and the URL has no record (FarmLists' URLSharing.swift).
    func start() -> Start {
        let url = claim.record.url, fresh = claim.record.fresh || fetchesAnyway
        if claim.isFresh && claim.record.own, let partial = URLPartial.takeNew(spool, url: url) {
            return .transfer(partial)
        }
        if let earlier = claim.record.after, let ended = waitWhileClaimed(earlier) { return ended }
        var stuckSince: Double?
        while true {
            let holder: ActiveName?
            switch URLPartial.take(spool, url: url) {
            case .held(let partial):
                // Stored already, or by the transfer that held it until now: these bytes serve nobody.
                if !fresh, let stored = linkStored() ?? linkOutput(ofEarlier: claim.record.after) {
                    partial.drop()
                    return stored
                }
                if partial.isStoredName {
                    partial.drop()
                    continue
                }
                if fresh && partial.lastHolder?.job != claim.job { partial.discardBytes() }
                // A run of this job killed while it transferred by itself left bytes nobody else takes.
                if !claim.isFresh { Dedup(spool).dropOwnPartial(of: claim.job) }
                partial.hold(for: claim)
                return .transfer(partial)
            case .failed(let error):
                return end("cannot make the partial download of \(claim.job): \(error)")
            case .busy(let named):
                if !fresh, let stored = linkStored() { return stored }
                holder = named
            }
            guard Clock.pause(Self.poll, every: Self.poll, unless: { waitEnds }) else { return endWait() }
            // A holder whose claim is gone but who still holds the lock (a stopped process) may never let
            // go: after a lease of that, this job transfers by itself, into its own partial.
            let now = Clock.monotonic()
            if let holder, !Dedup(spool).isClaimed(holder) {
                let since = stuckSince ?? now
                stuckSince = since
                if now - since >= lease { return transferAlone() }
            } else {
                stuckSince = nil
            }
        }
    }

    /// Waits while `earlier`, the own job of the URL, is claimed (its first claim may be transferring with
    /// no lock or record). Nil once it is not; `ended` when this job is no longer this worker's.
    private func waitWhileClaimed(_ earlier: JobName) -> Start? {
        Clock.poll(every: Self.poll, unless: { waitEnds }) { !spool.isClaimed(earlier) } == .ready ? nil : endWait()
    }

    /// What ends a wait for another job's transfer: the claim lost, the worker stopping, or the farm paused. A
    /// job that waits has not started: paused, it goes back to the queue as the rest of a pack does, and finds
    /// the URL's transfer where it was left at its next claim.
    private var waitEnds: Bool { kept.lost || Worker.stopRequested || spool.control.isPaused }

    /// The end of a wait that `waitEnds` ended: the job handed back, unless it is no longer this worker's.
    private func endWait() -> Start { kept.lost ? .ended : end(nil) }

    /// The output of `earlier`, the own job of the URL, when it is done: published as the URL's record (so
    /// that every later job finds it), then linked as `linkStored` links. The caller holds the URL's lock.
    private func linkOutput(ofEarlier earlier: JobName?) -> Start? {
        guard let earlier, let done = Lists(spool).doneResource(earlier), let file = done.record.file,
              let name = file.split(separator: "/").last, let size = done.record.size else { return nil }
        let path = spool.outputDirectory(ofList: earlier.list) + "/" + name
        guard let fd = try? FileDescriptor.open(path, .readOnly) else { return nil }
        defer { fd.closeQuietly() }
        guard let st = try? fd.status(), Int(st.size) == size else { return nil }
        Dedup(spool).publish(path, fd: fd, url: claim.record.url, size: size, kind: done.record.kind,
                             etag: done.record.etag, modified: done.record.modified)
        return linkStored()
    }

    /// The job's own partial, held, for a transfer without its URL's lock; `ended` when a stale owner of
    /// the job still writes that one (the job goes back to the queue: never write the same bytes at once).
    private func transferAlone() -> Start {
        switch URLPartial.takeOwn(spool, job: claim.job) {
        case .held(let partial): return .transfer(partial)
        case .failed(let error): return end("cannot make the partial download of \(claim.job): \(error)")
        case .busy:
            let ended = end(nil)
            // Not claimed again at once by this slot, while the stale owner still writes.
            Clock.pause(0.2, unless: { Worker.stopRequested })
            return ended
        }
    }

    /// Hands the job back to the queue (with a line for the log, when there is a reason worth one).
    private func end(_ reason: String?) -> Start {
        if let reason { spool.log(reason) }
        do { try spool.release(claim) } catch where error.code == .leaseLost {} catch { spool.log("\(error)") }
        return .ended
    }

    /// The URL's stored result linked (or copied) into tmp/, or nil when there is none (or it went meanwhile).
    /// Stored bytes of another SHA-256 than the job's list names serve it nothing: it downloads its own (a
    /// blob is named by its SHA-256 only when it had to be, so a job with a checksum hashes what it links).
    private func linkStored() -> Start? {
        guard let linked = Dedup(spool).linkStoredResult(of: claim.record.url, to: { spool.scratch.path("shared") })
        else { return nil }
        if let expected = claim.record.sha256, linked.record.blob != expected, (try? Dedup.digest(ofFile: linked.path)) != expected {
            try? FileSystem.unlink(linked.path)
            return nil
        }
        return .stored(path: linked.path, record: linked.record)
    }

    /// Serves the job from the stored bytes linked at `path`: stored as its download (`finish`, given
    /// their kind) and converted, it completes as `shared`. Returns what `finish` returns; false when the
    /// bytes cannot be opened (the job went back to the queue).
    static func serve(_ job: inout JobRun, from path: String, finish: (JobRun, Kind?) -> Bool) -> Bool {
        guard let fd = try? FileDescriptor.open(path, .readOnly) else {
            try? job.spool.release(job.claim)
            return false
        }
        let kind = DisplayImage.sniff(descriptor: fd)
        fd.closeQuietly()
        job.shared = true
        return finish(job, kind)
    }

    /// A job served from the bytes linked at `path` is over (or with the converter). What an earlier
    /// transfer of the URL left in partial/ goes (unless someone writes it): a holder killed after it
    /// published leaves a name of the stored bytes there.
    static func servedFrom(_ path: String, _ job: JobRun) {
        try? FileSystem.unlink(path)  // left only when the job did not complete: handed back or failed
        Dedup(job.spool).dropPartials(of: job.claim.job, url: job.claim.record.url)
    }

    /// The transfer into `partial` (held) is whole, its bytes of `kind`: they become the URL's valid result
    /// (unless they are no kind farm keeps, which fails the job anyway). A transfer without the URL's lock
    /// publishes nothing.
    static func publish(_ partial: URLPartial, kind: Kind?, _ claim: Claim, spool: Spool, result: DownloadResult) {
        guard partial.isURLs, let kind else { return }
        // Its URL is this job's alone: its bytes are stored once, with no record (URLSharing.swift).
        if partial.isOwnJobs {
            Dedup(spool).storeBytes(partial.path, fd: partial.fd, size: result.bytes, sha256: result.sha256,
                                   quickDigest: result.quickDigest)
            return
        }
        Dedup(spool).publish(partial.path, fd: partial.fd, url: claim.record.url, size: result.bytes, kind: kind.rawValue,
                      etag: result.etag, modified: result.modified, sha256: result.sha256,
                             quickDigest: result.quickDigest)
    }
}
