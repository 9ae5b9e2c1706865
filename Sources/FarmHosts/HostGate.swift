import FarmDesired
import FarmSpool
import FarmSystem
import SystemPackage

/// A transfer's leave to go to its host: the slot it holds, if the host has a limit. Release it
/// when the transfer ends; a process that dies releases it with its locks.
public final class HostPass {
    private var slot: FileDescriptor?
    /// The host it was given for (nil: a pass the gate did not give, for a job no limit applies to). A
    /// request to another host needs the pass moved there first (`HostGate.move`).
    public private(set) var host: HostKey?

    init(slot: FileDescriptor?, host: HostKey?) {
        self.slot = slot
        self.host = host
    }

    /// A pass that holds no slot: for a job no limit applies to.
    public convenience init() {
        self.init(slot: nil, host: nil)
    }

    deinit { release() }

    public func release() {
        slot?.closeQuietly()
        slot = nil
    }

    /// Becomes `other` (its slot and host), giving back its own slot first.
    func take(_ other: HostPass) {
        release()
        slot = other.slot
        host = other.host
        other.slot = nil
    }
}

/// What a host says to a job about to start.
public enum Admission {
    /// Go on; keep the pass for as long as the transfer runs.
    case granted(HostPass)
    /// Not now: the host is full, held or out of tokens; ask again after `retryAt` (wall time).
    case refused(retryAt: Double)
}

/// One transfer slot's view of the per-host limits and holds (see HostManners.swift). With no limit set
/// and no host held it costs a stat of holds/ every `holdsStampLook` seconds and a listing of it every
/// `holdLook` seconds, nothing per job.
/// Not thread-safe: one per transfer slot.
public final class HostGate {
    /// How often the holds of every host are read again even when holds/ looks unchanged (its mtime
    /// is as coarse as the kernel's clock tick).
    static let holdLook = 0.5
    /// How often holds/ is looked at: a new hold stops this worker's requests to its host within this
    /// (the pause mark is looked at as often, for the same reason: a stat per job shows).
    static let holdsStampLook = 0.05
    /// How long a host with every slot taken is left alone before it is asked again.
    public static let fullRetry = 0.05

    public let spool: Spool
    public let limits: HostLimits
    /// Holds by host (raw key), as last read or written, still in force or not.
    private var holds: [String: Double] = [:]
    private var holdsRead = -Double.infinity
    /// holds/'s mtime when they were read: a new hold changes it, and one stat per job notices.
    private var holdsStamp = -1.0
    private var holdsStampRead = -Double.infinity
    private var random = SplitMix64()

    public init(spool: Spool, limits: HostLimits) {
        self.spool = spool
        self.limits = limits
    }

    /// Whether a job's host may be refused now: a limit is set, or some host is held. Reads the holds
    /// again when holds/ changed: ask once per claim, before `admit`.
    public var isActive: Bool {
        refreshHolds()
        return !limits.isNone || !holds.isEmpty
    }

    /// Asks `host` whether a transfer may start now: not while it is held (as `isActive` last read
    /// the holds), then a slot (with `perHost`), then a token (with `ratePerHost`).
    public func admit(_ host: HostKey) -> Admission {
        let now = Clock.wall()
        if let until = holds[host.raw], until > now { return .refused(retryAt: until) }
        var slot: FileDescriptor?
        if let perHost = limits.perHost {
            guard let taken = takeSlot(host, of: perHost) else { return .refused(retryAt: now + Self.fullRetry) }
            slot = taken
        }
        // The token itself is taken just before the request (`awaitToken`), which may come a moment after
        // the admission: taken here, the requests of many transfers admitted in a row could reach the host
        // bunched. Here a job only waits parked when its token is further off than a transfer should wait.
        if let rate = limits.ratePerHost, let wait = token(host, rate: rate, take: false),
           wait > Self.tokenPatience {
            slot?.closeQuietly()
            return .refused(retryAt: now + wait)
        }
        return .granted(HostPass(slot: slot, host: host))
    }

    /// Makes `pass` the leave for a request to `host`: at once when it is `host`'s already and `host` is not
    /// held; else (a redirect sends the transfer's next request to another host, or a retry brings it back
    /// to the first) its slot is given back, then the transfer waits here, holding none, until `host` lets
    /// it in: its hold over, a slot of its own, a token in sight (as `admit`). A redirected transfer waits
    /// rather than parks: a parked job starts again at its own URL, under its own host's leave. False when
    /// it stopped waiting because `going` said so.
    public func move(_ pass: HostPass, to host: HostKey, while going: () -> Bool) -> Bool {
        if pass.host == host && !isHeld(host) { return true }
        pass.release()
        // Asked again when the host said, at most every `fullRetry`.
        var retryIn = Self.fullRetry
        return Clock.poll(every: retryIn, unless: { !going() }) {
            refreshHolds()
            switch admit(host) {
            case .granted(let granted):
                pass.take(granted)
                return true
            case .refused(let retryAt):
                retryIn = min(max(retryAt - Clock.wall(), 0.001), Self.fullRetry)
                return false
            }
        } == .ready
    }

    /// How long an admitted transfer may wait for its host's token before its request.
    static let tokenPatience = 0.25

    /// Takes a token of `host`'s bucket for a request about to start (with `ratePerHost`, or `interval`
    /// seconds between two requests, a robots.txt's Crawl-delay: the slower of the two), waiting for one
    /// while `going` says so; false when it stopped waiting. Every request takes one, retries included.
    public func awaitToken(_ host: HostKey, interval: Double? = nil, while going: () -> Bool) -> Bool {
        let spaced = interval.map { 1 / $0 }
        guard let rate = limits.ratePerHost.map({ min($0, spaced ?? $0) }) ?? spaced else { return true }
        var wait = 0.0
        return Clock.poll(every: min(wait, 0.1), unless: { !going() }) {
            guard let next = token(host, rate: rate, take: true), next > 0 else { return true }
            wait = next
            return false
        } == .ready
    }

    /// Whether `host` is held now, by the holds as last read (again when holds/ changed): a transfer
    /// admitted before the hold asks it once more before its request.
    public func isHeld(_ host: HostKey) -> Bool {
        refreshHolds()
        return holds[host.raw].map { $0 > Clock.wall() } ?? false
    }

    /// The admission of a job by its URL; granted at once when the URL names no host (the worker
    /// refuses it for that).
    public func admit(url: String) -> Admission {
        guard let host = HostKey(url: url) else { return .granted(HostPass()) }
        return admit(host)
    }

    /// Whether the host of `url` is held now (see `isHeld(_:)`); false when it names none.
    public func isHeld(url: String) -> Bool { HostKey(url: url).map(isHeld) ?? false }

    /// Holds every request to `host` until `until` (wall time), for every worker of the farm and
    /// across restarts; an earlier hold than the one in force changes nothing.
    public func hold(_ host: HostKey, until: Double) {
        refreshHolds(force: true)
        guard until > holds[host.raw] ?? 0 else { return }
        holds[host.raw] = until
        do { try HostManners(spool).setHold(host, until: until) } catch { spool.log("\(error)") }
    }

    private func refreshHolds(force: Bool = false) {
        let now = Clock.monotonic()
        guard force || now - holdsStampRead >= Self.holdsStampLook else { return }
        holdsStampRead = now
        let stamp = (try? FileSystem.stat(spool.holdsDirectory))?.modificationTime ?? 0
        guard force || stamp != holdsStamp || now - holdsRead >= Self.holdLook else { return }
        holdsRead = now
        holdsStamp = stamp
        holds = HostManners(spool).holds()
    }

    /// An flock on one of the host's `count` slot files, tried from a random one on; nil when every
    /// one is held.
    private func takeSlot(_ host: HostKey, of count: Int) -> FileDescriptor? {
        let start = Int(random.next() % UInt64(count))
        for step in 0..<count {
            let path = HostManners(spool).hostSlotPath(host, (start + step) % count)
            let fd: FileDescriptor
            do { fd = try HostManners(spool).openHostFile(path) } catch {
                spool.log("cannot open \(path): \(error)")
                return nil
            }
            if (try? fd.tryLock()) == true { return fd }
            fd.closeQuietly()
        }
        return nil
    }

    /// Takes a token from the host's bucket (or, without `take`, only looks): nil or 0 when one was (or
    /// could be) taken, else the seconds until one will be there.
    private func token(_ host: HostKey, rate: Double, take: Bool) -> Double? {
        SharedBucket(spool: spool, path: HostManners(spool).hostBucketPath(host))
            .take(1, least: 1, rate: rate, burst: Self.burst(rate), take: take)?.wait
    }

    /// A bucket of one token for modest rates (at most R + 1 requests in any second), and of a
    /// twentieth of a second's tokens for high ones, so that fast hosts are not starved between looks.
    static func burst(_ rate: Double) -> Double { max(1, rate / 20) }
}
