import FarmConvert
import FarmDedup
import FarmHooks
import FarmLists
import FarmMirror
import FarmSpool
import FarmSystem
import FarmTransfer
import SystemPackage

/// One claimed job being worked on: its progress sidecar (written a few times a second at most, and
/// not at all for a job shorter than one tick), its outputs and its completion, which records its
/// outcome on the job file (see Outcome.swift in FarmSpool).
struct JobRun: Sendable {
    /// The shortest gap between two sidecar writes, and the delay before the first one.
    static let tick = 0.25

    let spool: Spool
    let claim: Claim
    /// The claim's lease, renewed by the worker's `LeaseKeeper`: its lost flag stops this job.
    let kept: LeaseKeeper.Kept
    /// Where a done resource of a list with `--out` goes too (SPEC §12).
    let deliveries: Deliveries
    /// The worker's hook runner, told when a job of a list with hooks is completed.
    let hookRunner: HookRunner?
    /// The list's hooks (SPEC §15): a completion they apply to marks its hook due first.
    var hooks: ListHooks?
    /// False: the download is stored and completed with no display image and no thumbnail.
    var convert = true
    var attempts = 1
    /// Served from the bytes another job's transfer stored (SharedDownload): done, it says `shared`.
    var shared = false
    /// The list's crawl (SPEC §18), and the worker's view of the URLs it has: the job's page links are
    /// appended before it completes (CrawlStep.swift). Nil for a job of a list that is not recursive.
    var crawl: CrawlSettings?
    var crawlSeen: CrawlSeen?
    /// The robots.txt rules of each origin a recursive list requests, its start's and those it spans to (the
    /// worker's `CrawlRobots`, for this list); nil for a list of `--no-robots`.
    var robots: (@Sendable (WebURL) -> Robots)?
    /// The response's Content-Type, which tells a crawl whether to read the page as HTML.
    var contentType: String?
    /// Where the request ended after redirects, when it was redirected.
    var finalURL: String?
    /// The list's WARC (SPEC §18), the worker's archive, and what this job's fetch sent and received: its
    /// records are handed over before the job completes (WARCArchive.swift). Nil for a list without `--warc`;
    /// no exchange for bytes served from another job's download.
    var warc: WARCSettings?
    var archive: WARCArchive?
    var exchange: CapturedExchange?
    /// The other answers of this job's fetch, recorded with it: each redirect's hop, and the error it fails
    /// with; the latest of each URL (`note`, in WARCArchive.swift).
    var answers: [CapturedExchange] = []
    private let started = Clock.monotonic()
    private let lastWrite = Box(0.0)
    /// What the status of the job says beside its progress from now on (`Sidecar.note`).
    private let note = Box<String?>(nil)
    private let wroteSidecar = Box(false)
    /// The worker looked at the pause mark at most `Worker.pauseLook` before claiming: the first
    /// look is one interval in.
    private let lastPauseCheck: Box<Double>
    /// The status last written and when it began: `changed` marks status changes, not every byte. The
    /// job is `downloading` from its claim on (SPEC §4), which is what the status shows before the first
    /// sidecar (the job file's mtime), not from its first write a tick later.
    private let lastStatus: Box<(status: Sidecar.Status, since: String)>

    init(spool: Spool, kept: LeaseKeeper.Kept, deliveries: Deliveries, hookRunner: HookRunner? = nil) {
        self.spool = spool
        self.claim = kept.claim
        self.kept = kept
        self.deliveries = deliveries
        self.hookRunner = hookRunner
        lastPauseCheck = Box(started)
        lastStatus = Box((.downloading, Timestamp.iso8601(kept.claim.claimed)))
    }

    /// Called from curl's progress callback: writes the sidecar when a tick has passed, and says
    /// whether to go on (false when the lease is lost, the farm is paused or this worker must stop).
    /// `pieces`: how far its pieces are, while it is fetched as pieces (SPEC §14).
    func progress(_ progress: TransferProgress, pieces: PieceCounts? = nil) -> Bool {
        if kept.lost || Worker.stopRequested { return false }
        let now = Clock.monotonic()
        if now - lastPauseCheck.value >= 0.1 {
            lastPauseCheck.value = now
            if spool.control.isPaused { return false }
        }
        // A server that does not resume started the file over: said at once, not at the next tick. A resumed
        // transfer says how far it is at once too (its bytes kept from before, and its size once known), so
        // that a view never shows 0% for a file a third done.
        let startedOver = progress.startedOver != nil && note.value == nil
        if startedOver, let why = progress.startedOver { noteStartedOver(why) }
        let resumed = progress.resumedFrom > 0 && progress.size != nil && !wroteSidecar.value
        if startedOver || resumed || now - started >= Self.tick && now - lastWrite.value >= Self.tick {
            lastWrite.value = now
            var sidecar = Sidecar(status: .downloading, bytes: progress.bytes, size: progress.size,
                                  attempts: attempts, changed: changedAt(.downloading))
            sidecar.pieces = pieces
            write(sidecar)
        }
        return true
    }

    /// The download stored as the job's file (`store`), to convert and complete.
    struct Stored: Sendable {
        let file: String
        let kind: Kind
        /// Where the download was: a conversion that finds the disk full moves it back there.
        let partialPath: String
    }

    /// The download is whole: store it, make its display image, complete the job (its record keeps the
    /// response's validators, `etag` and `modified`, for `farm sync`). False when the disk had no room for
    /// an output: the job went back to the queue with its download (see `handBack`).
    /// `kind`: what the bytes are, by their first bytes (`DisplayImage.sniff`).
    func finish(partialPath: String, kind: Kind?, bytes: Int, etag: String? = nil,
                modified: String? = nil) -> Bool {
        switch store(partialPath: partialPath, kind: kind) {
        case .stored(let stored): return finish(stored, bytes: bytes, etag: etag, modified: modified)
        case .ended: return true
        case .noRoom: return false
        }
    }

    enum Storing {
        case stored(Stored)
        /// The job ended here: failed (bytes of no kind farm keeps), or handed back.
        case ended
        /// Handed back for want of room on the disk.
        case noRoom
    }

    /// Stores the download at `partialPath` as the job's file: what `finish` converts.
    func store(partialPath: String, kind: Kind?) -> Storing {
        guard let kind else {
            fail(TransferSlot.unsupported, partial: partialPath)
            return .ended
        }
        // A claim taken from this worker leaves the output to its next owner, who may have stored it already
        // (this host was cut off from the spool while its transfer went on): the partial stays as it is.
        guard kept.isHeld(in: spool) else { return .ended }
        let file = spool.outputBase(claim.job) + "." + kind.storedExtension(url: claim.record.url)
        do { try spool.store(partialPath, as: file, of: claim.job) } catch {
            spool.log("cannot store \(file): \(error)")
            try? spool.release(claim)
            return error.isNoSpace ? .noRoom : .ended
        }
        return .stored(Stored(file: file, kind: kind, partialPath: partialPath))
    }

    /// The stored download waits for the worker's converter: its sidecar says so from now on.
    func queued(_ stored: Stored, bytes: Int) {
        let status: Sidecar.Status = stored.kind == .zip ? .unzipping : .rendering
        write(Sidecar(status: status, bytes: bytes, size: bytes, kind: stored.kind.rawValue, file: stored.file,
                      attempts: attempts, changed: changedAt(status)))
    }

    /// Makes the stored download's display image and thumbnail (unless conversions are off) and completes
    /// the job; as `finish`, false when the disk had no room for an output.
    func finish(_ stored: Stored, bytes: Int, etag: String? = nil, modified: String? = nil) -> Bool {
        let file = stored.file, kind = stored.kind
        let base = spool.outputBase(claim.job)
        var image: String?
        var thumb: String?
        // Lost while it waited for the converter: converting would be work for nothing. Bytes of another
        // kind are kept as they are, with no display image.
        if convert && kind != .other && !kept.lost {
            let made: DisplayImage.Made
            do {
                made = try DisplayImage.make(for: file, kind: kind, base: base) { stage in
                    let status: Sidecar.Status = stage == .unzipping ? .unzipping : .rendering
                    write(Sidecar(status: status, bytes: bytes, size: bytes, kind: kind.rawValue, file: file,
                                  attempts: attempts, changed: changedAt(status)))
                }
            } catch where error.isNoSpace {
                handBack(stored, bytes: bytes, etag: etag, modified: modified, error)
                return false
            } catch {
                fail(error.description, partial: nil, kind: kind.rawValue, file: file, bytes: bytes)
                return true
            }
            image = made.image
            // A thumbnail is for grid views only: without one the resource is still done (but not for
            // want of room: it is made once there is some).
            thumb = made.thumbnail
            if thumb == nil {
                do { thumb = try Thumbnail.make(for: made.image, base: base) } catch where error.isNoSpace {
                    handBack(stored, bytes: bytes, etag: etag, modified: modified, error)
                    return false
                } catch {
                    spool.log("no thumbnail for \(claim.job): \(error)")
                }
            }
        }
        if !kept.isHeld(in: spool) {
            dropOutputsIfRemoved()
            return true
        }
        // Recorded before it is done, once across kills (WARCArchive.swift says how).
        if let warc, exchange != nil || !answers.isEmpty,
           !recordExchanges(to: warc, file: file, bytes: bytes, kind: kind.rawValue) { return true }
        // A recursive list's links enter it before the page is done (FarmLists' CrawlAppend.swift).
        if crawl != nil && !appendLinks(file: file) { return true }
        // Delivered before it is done, so a done resource of such a list is always in its folder too; a
        // kill between the two delivers again to the same name (the delivery's mark says it is ours).
        let delivered: String?
        do {
            delivered = try deliveries.deliver(claim.job, file: file, ext: storedExtension(kind) ?? "", sha256: nil)
        } catch {
            fail("delivery failed: \(error)", partial: nil, kind: kind.rawValue, file: file, bytes: bytes)
            return true
        }
        var record = Sidecar(status: .done, bytes: bytes, size: bytes, kind: kind.rawValue, file: file, image: image,
                             thumb: thumb, attempts: attempts, changed: changedAt(.done), etag: etag, modified: modified)
        record.delivered = delivered
        complete(.done, record)
        return true
    }

    /// A conversion write found the disk full: the job goes back to the queue with its download, moved
    /// back to partial/ (a rename, which needs no room), so the next owner resumes at its last byte (the
    /// server then has nothing left to send) and converts again; what the conversion made is removed,
    /// so a job that is not done shows no output. Nothing is failed and no attempt is spent.
    private func handBack(_ stored: Stored, bytes: Int, etag: String?, modified: String?, _ reason: ConvertError) {
        if kept.lost { return }
        recordOwn(stored, bytes: bytes, etag: etag, modified: modified)
        spool.unstore(stored.file, to: stored.partialPath, of: claim.job)
        spool.log("\(claim.job) goes back to the queue with its download: \(reason)")
        do { try spool.release(claim) } catch where error.code == .leaseLost {} catch { spool.log("\(error)") }
    }

    /// The worker stops before its converter got to the job: it goes back to the queue with its download
    /// back where it was (as `handBack`), so a stop leaves no output of a job that is not done.
    func handBack(_ stored: Stored, bytes: Int, etag: String?, modified: String?) {
        if kept.lost { return }
        recordOwn(stored, bytes: bytes, etag: etag, modified: modified)
        spool.unstore(stored.file, to: stored.partialPath, of: claim.job, converted: false)
        do { try spool.release(claim) } catch where error.code == .leaseLost {} catch { spool.log("\(error)") }
    }

    /// A job marked own hands back a stored download (which its blob shares): its next claim takes the whole
    /// protocol, which serves stored bytes only from a URL record, so the download gets one now, as any other
    /// job's did when it was stored (FarmLists' URLSharing.swift).
    private func recordOwn(_ stored: Stored, bytes: Int, etag: String?, modified: String?) {
        guard claim.record.own, let fd = try? FileDescriptor.open(stored.file, .readOnly) else { return }
        defer { fd.closeQuietly() }
        Dedup(spool).publish(stored.file, fd: fd, url: claim.record.url, size: bytes, kind: stored.kind.rawValue,
                             etag: etag, modified: modified)
    }

    /// The extension a download of `kind` is stored and delivered (`{ext}`) with: its kind's, or for bytes
    /// of another kind their URL's, if any.
    private func storedExtension(_ kind: Kind) -> String? {
        kind == .other ? Kind.otherExtension(url: claim.record.url) : kind.fileExtension
    }

    /// Ends the job in failed/ with `reason` as its error; a list with `--warc` records its exchanges first
    /// (`records`), the whole download's (in `file`, else `partial`) among them once it has one.
    func fail(_ reason: String, partial: String?, kind: String? = nil, file: String? = nil, bytes: Int = 0,
              records: Bool = true) {
        // Recorded while the bytes are still there, before they go: a kill after it leaves a redo that finds
        // them recorded (WARCArchive.swift).
        let reason = records && !kept.lost ? recordFailure(reason, body: file ?? partial) : reason
        // The bytes go first, whoever owns the job now: they failed for good (the caller holds the partial,
        // so nobody else writes it). Killed between the two, the job is tried again; the other way round,
        // or kept for a claim lost meanwhile (its host cut off while another completed the job), a failed
        // URL's partial would be left to nobody.
        if let partial { try? FileSystem.unlink(partial) }
        if kept.lost { return }
        complete(.failed, Sidecar(status: .error, bytes: bytes, kind: kind, file: file, error: reason,
                                  attempts: attempts, changed: changedAt(.error)))
    }

    private func complete(_ outcome: Outcome, _ record: Sidecar) {
        var record = record
        record.shared = shared && outcome == .done
        record.note = record.note ?? note.value
        // The hook is marked due before the completion that makes it so: a kill between the two leaves a mark
        // whose job is not finished, which waits for the job's next completion (FarmSpool's Hooks.swift);
        // the other way round, a kill would lose the hook. No mark, no completion: the job is redone.
        let hooked = hooks?.command(failed: outcome == .failed) != nil
        if hooked {
            do { try spool.hooks.markDue(claim.job) } catch {
                spool.log("\(error); \(claim.job) goes back to the queue")
                do { try spool.release(claim) } catch where error.code == .leaseLost {} catch { spool.log("\(error)") }
                return
            }
        }
        defer { if hooked { hookRunner?.wake() } }
        do {
            // The record supersedes the progress sidecar: no stale "downloading" left behind (unless
            // the record itself had to go there).
            if try spool.complete(claim, outcome, record: record) && wroteSidecar.value {
                spool.sidecars.remove(claim.job)
            }
        } catch where error.code == .leaseLost {
            // Someone else has the job now: their completion is the one that counts.
            dropOutputsIfRemoved(delivered: record.delivered)
        } catch {
            spool.log("cannot complete \(claim.job): \(error)")
        }
    }

    /// The job was taken from this owner after it stored outputs. Taken by a reclaim, the outputs are
    /// the next owner's to replace; taken because the resource was removed from its list (SPEC §8),
    /// nobody else will, and a removed resource leaves no file.
    private func dropOutputsIfRemoved(delivered: String? = nil) {
        guard !Lists(spool).isMember(claim.job) else { return }
        Lists(spool).removeOutputs(of: claim.job, url: claim.record.url)
        if let delivered { deliveries.remove(delivered, of: claim.job) }
    }

    private func write(_ sidecar: Sidecar) {
        wroteSidecar.value = true
        var sidecar = sidecar
        sidecar.owner = claim.owner.raw
        sidecar.note = sidecar.note ?? note.value
        do { try spool.sidecars.write(sidecar, for: claim.job) } catch { spool.log("\(error)") }
    }

    /// Whether the job's status says something beside its progress already (`noteStartedOver`).
    var hasNote: Bool { note.value != nil }

    /// Tells, in the job's status and the spool's log, that its bytes were fetched again from the first, and why.
    func noteStartedOver(_ why: String) {
        note.value = why
        spool.log("\(claim.job): \(why)")
    }

    /// When `status` began: now, unless it is the status this owner is in (`downloading` since its claim).
    private func changedAt(_ status: Sidecar.Status) -> String {
        let last = lastStatus.value
        if last.status == status { return last.since }
        let since = Timestamp.iso8601(Clock.wall())
        lastStatus.value = (status, since)
        return since
    }
}

/// A mutable cell captured by the progress closure (which runs on the worker thread), and read by the
/// converter only once the worker handed the job over.
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
