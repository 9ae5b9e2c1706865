import CFarmCurlLoader
import Dispatch
import FarmSystem
import FoundationEssentials
import Synchronization

/// The transfers of one worker process, run on one libcurl multi handle: every transfer of the process
/// shares its connections (HTTP/1.1 keep-alive), its DNS cache and its TLS sessions, and over HTTP/2 its
/// requests to one host share one connection (curl waits for a connection that may multiplex rather than
/// open another: `CURLOPT_PIPEWAIT`).
///
/// A thread that transfers hands its easy handle to `perform` and blocks until the transfer ends, as
/// `curl_easy_perform` would: what a job does around its transfer stays a plain sequence of steps on
/// the job's thread. The multi handle is driven by the thread of one of its transfers at a time (leader
/// and followers): a thread whose transfer arrives when nobody drives drives every transfer until its own
/// ends, then hands the driving to the thread of one still running, or lets it go when none is. A worker
/// of one transfer (the default) so runs its transfer on its own thread, with no hand-over to another and
/// back (a wake-up write and read, two futex calls and two context switches a job), and a worker of many
/// keeps one thread in curl at a time, as a thread of the pool's own did. The transfers' callbacks
/// (write, header, progress) run on the driving thread; a transfer's context is its caller's again once
/// `perform` returns (the semaphore orders the two), and whatever the pool keeps for its driver (the
/// transfers running, the bandwidth held) passes from driver to driver through that semaphore too.
///
/// `curl_multi_poll` rather than `curl_multi_socket_action` over epoll: at tens of transfers a
/// process, one poll over their sockets costs less than keeping epoll's interest list in step with
/// curl's socket callbacks, and curl_multi_wakeup lets a new transfer in without a pipe of our own.
public final class TransferPool: @unchecked Sendable {
    /// One transfer handed to the pool, and how it ended.
    private final class Ticket: @unchecked Sendable {
        let curl: UnsafeMutableRawPointer
        let ended = DispatchSemaphore(value: 0)
        /// Written by the driver before `ended` is signalled; read by the caller after.
        var result = CURLE_OK
        /// Set, instead of a result, when the caller's thread is to drive the pool from now on.
        var drives = false

        init(_ curl: UnsafeMutableRawPointer) { self.curl = curl }
    }

    /// Only the driving thread calls curl on it, but for `curl_multi_wakeup` (any thread may).
    private let multi: UnsafeMutableRawPointer
    /// Transfers handed over and not yet added to the multi handle, and whether a thread drives it.
    private struct Door {
        var arriving: [Ticket] = []
        var driven = false
    }
    private let door = Locked(Door())
    /// Set while the driver may be asleep in `curl_multi_poll`: only then does a new transfer wake it (a
    /// write to curl's socket pair, which the poll then reads back), not while it runs transfers.
    private let polling = Atomic(false)
    /// The transfers on the multi handle, by their easy handles: the driver's alone.
    private var running: [UnsafeMutableRawPointer: Ticket] = [:]

    /// The longest a poll sleeps with nothing to do (a transfer's own time-outs wake it sooner).
    static let idlePoll: Int32 = 1000

    /// The cap on the bytes a second of all its transfers, if any, and what of it the pool holds (the
    /// driver's alone: transfers' write callbacks run on its thread).
    public let bandwidth: Bandwidth?
    private var pocket = BandwidthPocket()

    public init(bandwidth: Bandwidth? = nil) throws(TransferError) {
        self.bandwidth = bandwidth
        if let missing = EasyHandle.loadLibrary() { throw TransferError(.permanent, missing) }
        EasyHandle.initializeGlobally()
        guard let multi = curl_multi_init() else {
            throw TransferError(.transient, "libcurl could not make a multi handle")
        }
        self.multi = multi
    }

    /// Runs the transfer `curl` is set up for on the pool's connections, and returns how it ended.
    func perform(_ curl: UnsafeMutableRawPointer) -> CURLcode {
        let ticket = Ticket(curl)
        let drives = door.withLock { door in
            door.arriving.append(ticket)
            if door.driven { return false }
            door.driven = true
            return true
        }
        if !drives {
            // Ordered after the append: a driver that set `polling` after this read finds the ticket in
            // `arriving` before it sleeps (see `drive`).
            if polling.load(ordering: .sequentiallyConsistent) { _ = curl_multi_wakeup(multi) }
            ticket.ended.wait()
            guard ticket.drives else { return ticket.result }
        }
        drive(until: ticket)
        return ticket.result
    }

    /// Whether a transfer of this pool may take `count` body bytes now (see `Bandwidth`); false: it is paused,
    /// and resumed once the cap allows. On the driving thread, from a write callback.
    func admit(_ count: Int, of curl: UnsafeMutableRawPointer) -> Bool {
        guard let bandwidth else { return true }
        return pocket.admit(count, of: curl, bandwidth)
    }

    /// Runs every transfer of the pool on this thread until `mine` has ended, then hands the driving over.
    private func drive(until mine: Ticket) {
        var stillRunning: Int32 = 0
        var mineEnded = false
        let end = { (ticket: Ticket, result: CURLcode) in
            ticket.result = result
            if ticket === mine { mineEnded = true } else { ticket.ended.signal() }
        }
        while true {
            for ticket in door.withLock({ door in defer { door.arriving = [] }; return door.arriving }) {
                guard curl_multi_add_handle(multi, ticket.curl) == CURLM_OK else {
                    end(ticket, CURLE_FAILED_INIT)
                    continue
                }
                running[ticket.curl] = ticket
            }
            _ = curl_multi_perform(multi, &stillRunning)
            var easy: UnsafeMutableRawPointer?
            var result = CURLE_OK
            while cfarm_curl_multi_next_done(multi, &easy, &result) != 0 {
                guard let easy, let ticket = running.removeValue(forKey: easy) else { continue }
                _ = curl_multi_remove_handle(multi, easy)
                pocket.forget(easy)
                end(ticket, result)
            }
            if mineEnded {
                handOver()
                return
            }
            var timeout = Self.idlePoll
            if !pocket.paused.isEmpty {
                // Resuming hands the transfer its held bytes at once, through `admit` again.
                for curl in pocket.due(now: Clock.monotonic()) {
                    _ = curl_easy_pause(curl, Int32(CURLPAUSE_CONT))
                }
                timeout = min(timeout, pocket.nextDue(now: Clock.monotonic()) ?? timeout)
            }
            polling.store(true, ordering: .sequentiallyConsistent)
            if door.withLock({ $0.arriving.isEmpty }) { _ = curl_multi_poll(multi, nil, 0, timeout, nil) }
            polling.store(false, ordering: .sequentiallyConsistent)
        }
    }

    /// The driver's transfer has ended: the thread of another transfer, running or arriving, drives from
    /// now on; with none, nobody does, and the next to arrive will. Decided under the door's lock, so a
    /// transfer that arrives meanwhile is either seen here or finds the pool undriven.
    private func handOver() {
        let next: Ticket? = door.withLock { door in
            if let ticket = running.values.first ?? door.arriving.first { return ticket }
            door.driven = false
            return nil
        }
        guard let next else { return }
        next.drives = true
        next.ended.signal()
    }
}
