import FarmConvert
import FarmSpool
import FarmSystem
import FarmTransfer
import Foundation
import SystemPackage

/// Download once (SPEC §7; "Once" in FarmSpool's protocol), the worker's side: before its transfer a
/// job is served from its URL's stored result, or becomes the one transfer of its URL, or waits for it.
struct SharedDownload {
    /// How often a waiter looks at the lock of the URL another worker transfers.
    static let poll = 0.05

    enum Start {
        /// The URL's stored bytes, linked at `path` in tmp/ for the job to store as its download, and
        /// their record (size, validators).
        case stored(path: String, record: URLRecord)
        /// This job transfers the URL, holding its lock (nil: without it, the holder being stuck).
        case transfer(URLLock?)
        /// The job is no longer this worker's (lost, or handed back as the worker stops).
        case ended
    }

    let spool: Spool
    let claim: Claim
    let keeper: LeaseKeeper
    let lease: Double

    /// Where the job starts from. A fresh job skips the stored result and adopts nothing. A waiter keeps
    /// the host slot it was let in with (per-host limits): the holder has one of its own, so waiting
    /// never blocks the transfer it waits for.
    func start() -> Start {
        let url = claim.record.url, fresh = claim.record.fresh
        if !fresh, let stored = linkStored() { return stored }
        var stuckSince: Double?
        while true {
            if let lock = URLLock.take(spool, url: url) {
                // The transfer that held it may have just stored the result.
                if !fresh, let stored = linkStored() {
                    let left = lock.lastHolder.map { $0.job != claim.job && FileSystem.exists(spool.partialPath($0.job)) }
                    lock.release(keepFile: left ?? false)
                    return stored
                }
                if !fresh, let holder = lock.lastHolder { spool.adoptPartial(of: holder.job, into: claim.job) }
                lock.hold(for: claim)
                return .transfer(lock)
            }
            if keeper.lost { return .ended }
            if Worker.stopRequested {
                do { try spool.release(claim) } catch where error.code == .leaseLost {} catch { spool.log("\(error)") }
                return .ended
            }
            // A holder whose claim is gone but who still holds the lock (a stopped process) may never let
            // go: after a lease of that, this job transfers by itself.
            let now = Clock.monotonic()
            if isHolderGone(url) {
                let since = stuckSince ?? now
                stuckSince = since
                if now - since >= lease { return .transfer(nil) }
            } else {
                stuckSince = nil
            }
            Thread.sleep(forTimeInterval: Self.poll)
        }
    }

    /// The URL's stored result linked (or copied) into tmp/, or nil when there is none (or it went meanwhile).
    private func linkStored() -> Start? {
        let path = spool.scratchPath("shared")
        return spool.linkStoredResult(of: claim.record.url, to: path).map { .stored(path: path, record: $0) }
    }

    /// Whether the claim the URL's lock file names is no longer claimed by that owner.
    private func isHolderGone(_ url: String) -> Bool {
        guard let holder = URLLock.holder(spool, url: url) else { return false }
        return !spool.isClaimed(holder)
    }

    /// Serves the job from the stored bytes linked at `path`: stored as its download and converted, it
    /// completes as `shared`. What an earlier attempt left in partial/ goes (unless someone writes it).
    static func serve(_ job: inout JobRun, from path: String, record: URLRecord, disk: DiskGate) {
        guard let fd = try? FileDescriptor.open(path, .readOnly) else {
            try? job.spool.release(job.claim)
            return
        }
        defer { fd.closeQuietly() }
        job.shared = true
        if !job.finish(partialPath: path, fd: fd, bytes: record.size, etag: record.etag, modified: record.modified) {
            disk.foundFull()
        }
        try? FileSystem.unlink(path)  // left only when the job did not complete: handed back or failed
        let partial = job.spool.partialPath(job.claim.job)
        if let own = try? FileDescriptor.open(partial, .readOnly) {
            if (try? own.tryLock()) == true { try? FileSystem.unlink(partial) }
            own.closeQuietly()
        }
    }

    /// The transfer into `partial` (open as `fd`) is whole: its bytes become the URL's valid result
    /// (unless they are no kind farm keeps, which fails the job anyway), and the lock goes.
    static func publish(_ lock: URLLock?, _ claim: Claim, spool: Spool, partial: String, fd: FileDescriptor,
                        result: DownloadResult) {
        guard let lock else { return }
        if let kind = DisplayImage.sniff(descriptor: fd) {
            spool.publish(partial, fd: fd, url: claim.record.url, size: result.bytes, kind: kind.rawValue,
                          etag: result.etag, modified: result.modified, sha256: result.sha256)
        }
        lock.release(keepFile: false)
    }
}
