import FarmConvert
import FarmSpool
import FarmTransfer
import FarmSystem
import SystemPackage

/// One claimed job being worked on: its progress sidecar (written a few times a second at most, and
/// not at all for a job shorter than one tick), its outputs and its completion, which records its
/// outcome on the job file (see Outcome.swift in FarmSpool).
struct JobRun {
    /// The shortest gap between two sidecar writes, and the delay before the first one.
    static let tick = 0.25

    let spool: Spool
    let claim: Claim
    let keeper: LeaseKeeper
    /// False: the download is stored and completed with no display image and no thumbnail.
    var convert = true
    var attempts = 1
    /// Served from the bytes another job's transfer stored (SharedDownload): done, it says `shared`.
    var shared = false
    private let started = Clock.monotonic()
    private let lastWrite = Box(0.0)
    private let wroteSidecar = Box(false)
    /// The worker looked at the pause mark at most `Worker.pauseLook` before claiming: the first
    /// look is one interval in.
    private let lastPauseCheck: Box<Double>
    /// The status last written and when it began: `changed` marks status changes, not every byte.
    private let lastStatus = Box<(status: Sidecar.Status, since: String)?>(nil)

    init(spool: Spool, claim: Claim, keeper: LeaseKeeper) {
        self.spool = spool
        self.claim = claim
        self.keeper = keeper
        lastPauseCheck = Box(started)
    }

    /// Called from curl's progress callback: writes the sidecar when a tick has passed, and says
    /// whether to go on (false when the lease is lost, the farm is paused or this worker must stop).
    func progress(_ progress: TransferProgress) -> Bool {
        if keeper.lost || Worker.stopRequested { return false }
        let now = Clock.monotonic()
        if now - lastPauseCheck.value >= 0.1 {
            lastPauseCheck.value = now
            if spool.isPaused { return false }
        }
        if now - started >= Self.tick && now - lastWrite.value >= Self.tick {
            lastWrite.value = now
            write(Sidecar(status: .downloading, bytes: progress.bytes, size: progress.size, attempts: attempts,
                          changed: changedAt(.downloading)))
        }
        return true
    }

    /// The download is whole: store it, make its display image, complete the job (its record keeps the
    /// response's validators, `etag` and `modified`, for `farm sync`). False when the disk had no room for
    /// an output: the job went back to the queue with its download (see `handBack`).
    /// `kind`: what the bytes are, by their first bytes (`DisplayImage.sniff`).
    func finish(partialPath: String, kind: Kind?, bytes: Int, etag: String? = nil,
                modified: String? = nil) -> Bool {
        guard let kind else {
            fail("unsupported content", partial: partialPath)
            return true
        }
        let base = spool.outputBase(claim.job)
        let file = base + "." + kind.fileExtension
        do { try spool.store(partialPath, as: file, of: claim.job) } catch {
            spool.log("cannot store \(file): \(error)")
            try? spool.release(claim)
            return !error.isNoSpace
        }
        var image: String?
        var thumb: String?
        if convert {
            let made: DisplayImage.Made
            do {
                made = try DisplayImage.make(for: file, kind: kind, base: base) { stage in
                    let status: Sidecar.Status = stage == .unzipping ? .unzipping : .rendering
                    write(Sidecar(status: status, bytes: bytes, size: bytes, kind: kind.rawValue, file: file,
                                  attempts: attempts, changed: changedAt(status)))
                }
            } catch where error.isNoSpace {
                handBack(file, to: partialPath, error)
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
                    handBack(file, to: partialPath, error)
                    return false
                } catch {
                    spool.log("no thumbnail for \(claim.job): \(error)")
                }
            }
        }
        if keeper.lost {
            dropOutputsIfRemoved()
            return true
        }
        complete(.done, Sidecar(status: .done, bytes: bytes, size: bytes, kind: kind.rawValue, file: file,
                                image: image, thumb: thumb, attempts: attempts, changed: changedAt(.done),
                                etag: etag, modified: modified))
        return true
    }

    /// A conversion write found the disk full: the job goes back to the queue with its download, moved
    /// back to partial/ (a rename, which needs no room), so the next owner resumes at its last byte (the
    /// server then has nothing left to send) and converts again; what the conversion made is removed,
    /// so a job that is not done shows no output. Nothing is failed and no attempt is spent.
    private func handBack(_ file: String, to partialPath: String, _ reason: ConvertError) {
        if keeper.lost { return }
        spool.unstore(file, to: partialPath, of: claim.job)
        spool.log("\(claim.job) goes back to the queue with its download: \(reason)")
        do { try spool.release(claim) } catch where error.code == .leaseLost {} catch { spool.log("\(error)") }
    }

    /// Ends the job in failed/ with `reason` as its error.
    func fail(_ reason: String, partial: String?, kind: String? = nil, file: String? = nil, bytes: Int = 0) {
        if keeper.lost { return }
        // The bytes go first: killed between the two, the job is tried again; the other way round, a
        // failed job would leave its URL's partial to nobody.
        if let partial { try? FileSystem.unlink(partial) }
        complete(.failed, Sidecar(status: .error, bytes: bytes, kind: kind, file: file, error: reason,
                                  attempts: attempts, changed: changedAt(.error)))
    }

    private func complete(_ outcome: Outcome, _ record: Sidecar) {
        var record = record
        record.shared = shared && outcome == .done
        do {
            // The record supersedes the progress sidecar: no stale "downloading" left behind (unless
            // the record itself had to go there).
            if try spool.complete(claim, outcome, record: record) && wroteSidecar.value {
                spool.removeSidecar(claim.job)
            }
        } catch where error.code == .leaseLost {
            // Someone else has the job now: their completion is the one that counts.
            dropOutputsIfRemoved()
        } catch {
            spool.log("cannot complete \(claim.job): \(error)")
        }
    }

    /// The job was taken from this owner after it stored outputs. Taken by a reclaim, the outputs are
    /// the next owner's to replace; taken because the resource was removed from its list (SPEC §8),
    /// nobody else will, and a removed resource leaves no file.
    private func dropOutputsIfRemoved() {
        if !spool.isMember(claim.job) { spool.removeOutputs(of: claim.job, url: claim.record.url) }
    }

    private func write(_ sidecar: Sidecar) {
        wroteSidecar.value = true
        do { try spool.writeSidecar(sidecar, for: claim.job) } catch { spool.log("\(error)") }
    }

    /// When `status` began: now, unless it is the status this owner last wrote.
    private func changedAt(_ status: Sidecar.Status) -> String {
        if let last = lastStatus.value, last.status == status { return last.since }
        let since = Timestamp.iso8601(Clock.wall())
        lastStatus.value = (status, since)
        return since
    }
}

/// A mutable cell captured by the progress closure (which runs on the worker thread only).
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
