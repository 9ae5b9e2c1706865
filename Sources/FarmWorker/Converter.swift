import Dispatch
import FarmSpool
import FarmSystem
import FoundationEssentials

/// Converts the downloads its worker stored (display image, thumbnail) and completes their jobs, on a
/// thread of its own at a low CPU priority (`nice`): conversions (PDF rendering, JPEG decoding, unzipping)
/// take the CPU the worker's other transfers leave. Each job stays claimed, its lease kept by the worker's
/// `LeaseKeeper`, until the converter completes it, and the transfer that stored it claims no other job
/// before (`Work.finished`): a worker holds at most its transfers' count of jobs, so that no view ever
/// shows more in progress than workers × transfers (SPEC §13's concurrency, one number).
final class Converter: Sendable {
    /// The most jobs waiting for one worker's converter at a lease of `lease` seconds: the worker then
    /// waits for room. Each holds its claim, which the `LeaseKeeper` renews every lease/4, so this keeps
    /// those renewals to about 1,000 a second a worker however far conversions fall behind; from 1,024
    /// to 16,384, so memory stays bounded. At the default lease, 2,560: above a worker's share of a list
    /// of thousands, whose transfers then never wait for conversions, whatever the worker's transfers.
    static func bound(lease: Double) -> Int { Int(min(max(lease * 256, 1024), 16384)) }
    /// The converter thread's nice value.
    static let nice: Int32 = 10

    /// One stored download, waiting for its conversion.
    struct Work: Sendable {
        let job: JobRun
        let stored: JobRun.Stored
        let bytes: Int
        let etag: String?
        let modified: String?
        /// Served from the URL's stored bytes linked at this path (`SharedDownload.serve`): cleaned up after.
        let served: String?
        /// Signalled once the job is finished (completed, failed or handed back): what its transfer waits for.
        let finished = DispatchSemaphore(value: 0)
    }

    private let spool: Spool
    private let keeper: LeaseKeeper
    private let disk: DiskGate
    /// Jobs waiting, in the order they were stored, and how many are not finished yet (those plus the
    /// one in conversion).
    private let state = Locked((waiting: [Work](), unfinished: 0))
    /// Signalled once per job added: the converter's thread waits on it.
    private let added = DispatchSemaphore(value: 0)
    /// Counts free places in the queue: the worker waits on it when the queue is full.
    private let room: DispatchSemaphore

    init(spool: Spool, keeper: LeaseKeeper, disk: DiskGate, lease: Double) {
        self.spool = spool
        self.keeper = keeper
        self.disk = disk
        room = DispatchSemaphore(value: Self.bound(lease: lease))
        Threads.detach { [self] in
            // This thread only: the worker's transfers keep their priority. Not the lowest: on a machine
            // busy with other work, a thread at nice 19 gets so little CPU that conversions would wait
            // minutes; at 10 it still yields most of the CPU to the transfers.
            do { try Processes.setThreadNice(Self.nice) } catch { spool.log("cannot lower the converter's priority: \(error)") }
            while true {
                added.wait()
                let work = state.withLock { $0.waiting.removeFirst() }
                room.signal()
                if Worker.stopRequested && !work.job.kept.lost { handBack(work) } else { finish(work) }
                keeper.release(work.job.kept)
                state.withLock { $0.unfinished -= 1 }
                work.finished.signal()
            }
        }
    }

    /// Hands `work` to the converter's thread, waiting for room when the queue is full. False when the
    /// worker was asked to stop while it waited: the job went back to the queue.
    func add(_ work: Work) -> Bool {
        while room.wait(timeout: .now() + 0.1) == .timedOut {
            guard Worker.stopRequested else { continue }
            handBack(work)
            return false
        }
        state.withLock {
            $0.waiting.append(work)
            $0.unfinished += 1
        }
        added.signal()
        return true
    }

    /// Whether every job handed over is finished (completed, failed or handed back).
    var isIdle: Bool { state.withLock { $0.unfinished == 0 } }

    /// Returns once every job handed over is finished: a worker that exits holds no claim.
    func waitUntilIdle() {
        Clock.poll(every: 0.05, for: .infinity) { isIdle }
    }

    /// Stopping: the job goes back to the queue unconverted, its download back in partial/; its next
    /// owner is served the URL's stored bytes without a transfer.
    private func handBack(_ work: Work) {
        work.job.handBack(work.stored, bytes: work.bytes, etag: work.etag, modified: work.modified)
        if let served = work.served { SharedDownload.servedFrom(served, work.job) }
    }

    /// Converts and completes `work` on the calling thread (the worker's own, with conversions off).
    func finish(_ work: Work) {
        if !work.job.finish(work.stored, bytes: work.bytes, etag: work.etag, modified: work.modified) {
            disk.foundFull()
        }
        if let served = work.served { SharedDownload.servedFrom(served, work.job) }
    }
}
