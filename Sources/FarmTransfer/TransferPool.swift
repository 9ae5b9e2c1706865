import CFarmCurlLoader
import Dispatch
import FarmSystem
import Foundation
import Synchronization

/// The transfers of one worker process, run on one libcurl multi handle by one thread of their own: every
/// transfer of the process shares its connections (HTTP/1.1 keep-alive), its DNS cache and its TLS
/// sessions, and over HTTP/2 its requests to one host share one connection (curl waits for a connection
/// that may multiplex rather than open another: `CURLOPT_PIPEWAIT`).
///
/// A thread that transfers hands its easy handle to `perform` and blocks until the transfer ends, as
/// `curl_easy_perform` would: what a job does around its transfer stays a plain sequence of steps on
/// the job's thread, while the bytes of every transfer move on this one. The transfers' callbacks
/// (write, header, progress) run on the pool's thread; a transfer's context is the caller's again once
/// `perform` returns (the semaphore orders the two).
///
/// `curl_multi_poll` rather than `curl_multi_socket_action` over epoll: at tens of transfers a
/// process, one poll over their sockets costs less than keeping epoll's interest list in step with
/// curl's socket callbacks, and curl_multi_wakeup lets a new transfer in without a pipe of our own.
public final class TransferPool: @unchecked Sendable {
    /// One transfer handed to the pool, and how it ended.
    private final class Ticket: @unchecked Sendable {
        let curl: UnsafeMutableRawPointer
        let ended = DispatchSemaphore(value: 0)
        /// Written by the pool's thread before `ended` is signalled; read by the caller after.
        var result = CURLE_OK

        init(_ curl: UnsafeMutableRawPointer) { self.curl = curl }
    }

    /// Only the pool's thread calls curl on it, but for `curl_multi_wakeup` (any thread may).
    private let multi: UnsafeMutableRawPointer
    /// Transfers handed over and not yet added to the multi handle.
    private let arriving = Locked<[Ticket]>([])
    /// Set while the pool's thread may be asleep in `curl_multi_poll`: only then does a new transfer wake
    /// it (a write to curl's socket pair, which the poll then reads back), not while it runs transfers.
    private let polling = Atomic(false)

    /// The longest a poll sleeps with nothing to do (a transfer's own time-outs wake it sooner).
    static let idlePoll: Int32 = 1000

    /// The cap on the bytes a second of all its transfers, if any, and what of it the pool holds (its
    /// thread's alone: transfers' write callbacks run there).
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
        Thread.detachNewThread { [self] in run() }
    }

    /// Runs the transfer `curl` is set up for on the pool's connections, and returns how it ended.
    func perform(_ curl: UnsafeMutableRawPointer) -> CURLcode {
        let ticket = Ticket(curl)
        arriving.withLock { $0.append(ticket) }
        // Ordered after the append: a pool that set `polling` after this read finds the ticket in
        // `arriving` before it sleeps (see `run`).
        if polling.load(ordering: .sequentiallyConsistent) { _ = curl_multi_wakeup(multi) }
        ticket.ended.wait()
        return ticket.result
    }

    /// Whether a transfer of this pool may take `count` body bytes now (see `Bandwidth`); false: it is paused,
    /// and resumed once the cap allows. On the pool's thread, from a write callback.
    func admit(_ count: Int, of curl: UnsafeMutableRawPointer) -> Bool {
        guard let bandwidth else { return true }
        return pocket.admit(count, of: curl, bandwidth)
    }

    private func run() {
        var running: [UnsafeMutableRawPointer: Ticket] = [:]
        var stillRunning: Int32 = 0
        while true {
            for ticket in arriving.withLock({ arriving in defer { arriving = [] }; return arriving }) {
                let added = curl_multi_add_handle(multi, ticket.curl)
                guard added == CURLM_OK else {
                    ticket.result = CURLE_FAILED_INIT
                    ticket.ended.signal()
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
                ticket.result = result
                ticket.ended.signal()
            }
            var timeout = Self.idlePoll
            if !pocket.paused.isEmpty {
                // Resuming hands the transfer its held bytes at once, through `admit` again.
                for curl in pocket.due(now: ProcessInfo.processInfo.systemUptime) {
                    _ = curl_easy_pause(curl, Int32(CURLPAUSE_CONT))
                }
                timeout = min(timeout, pocket.nextDue(now: ProcessInfo.processInfo.systemUptime) ?? timeout)
            }
            polling.store(true, ordering: .sequentiallyConsistent)
            if arriving.withLock({ $0.isEmpty }) { _ = curl_multi_poll(multi, nil, 0, timeout, nil) }
            polling.store(false, ordering: .sequentiallyConsistent)
        }
    }
}
