import FarmConvert
import FarmDesired
import FarmLists
import FarmPages
import FarmSpool
import FarmSystem
import FarmTransfer
import SystemPackage

/// What a follower runs with.
public struct FollowerOptions: Sendable {
    /// How a page that fails is retried: the policy of the downloads (SPEC §7), `Retry-After` honoured.
    public var retry = RetryPolicy()
    /// The most one page may weigh: a page is read into memory whole.
    public var maxPageBytes = 64 << 20
    /// The CA certificates HTTPS servers are verified against; nil: the system's.
    public var caFile: String?
    /// Whether the cover gets a display image made (false with `farm start --no-convert`).
    public var convert = true

    public init() {}

    /// A supervised follower's: what `farm start` asked for.
    public init(_ desired: Desired) {
        caFile = desired.caFile
        convert = desired.convert
    }
}

/// The follower (`farm follow`, started by the supervisor while some list has pages to follow): fetches
/// the pages of paged lists (SPEC §7) one at a time, taking the lists in turn, and adds each page's
/// items to its list (`Spool.appendPage`) while the workers download. Everything it knows is in the
/// spool (see "Pages" in FarmLists' protocol), so a follower killed at any moment costs at most a page fetched
/// again. It keeps, per list, only a hash of each page fetched so far, never their items: a source of ten
/// thousand pages of a hundred items runs in the memory of one page (and 80 KB of hashes).
///
/// One at a time per spool (`control/follower.lock`); one thread, one curl handle. It returns once no
/// list is left to follow, or on SIGTERM, `farm stop` or a removed spool.
public final class Follower {
    private let spool: Spool
    private let options: FollowerOptions
    private let fetch: PageFetch

    /// A list being followed: its reader, the pages fetched before (their number by the hash of their
    /// URL), the failed tries of its next page.
    private struct Track {
        let reader: PageReader
        var fetched: [UInt64: Int] = [:]
        var attempts = 0

        init(reader: PageReader, log: [PageState]) {
            self.reader = reader
            for state in log {
                guard let page = state.page else { continue }
                fetched[Follower.hash(page)] = state.fetched
                if state.fetched == 1, let next = state.next { aliasFirst(page, next: next) }
            }
        }

        /// The first page is fetched at the URL it was added with, which names no page: when it says the
        /// next page is number N, it is also number N-1 (`?page=1` when the next is `?page=2`), so an API
        /// that loops back to it by number is seen to.
        mutating func aliasFirst(_ first: String, next: String) {
            let parameter = reader.source.pageParameter
            guard let value = PageReader.value(of: parameter, in: next), let number = Int(value),
                  next == PageReader.url(first, setting: parameter, to: value) else { return }
            fetched[Follower.hash(PageReader.url(first, setting: parameter, to: String(number - 1)))] = 1
        }
    }

    private var tracks: [String: Track] = [:]
    /// When the next try of a list may be (after a failure, or while it is not published whole).
    private var notBefore: [String: Double] = [:]
    /// Where the next turn starts in the sorted lists.
    private var turn = 0

    public init(spool: Spool, options: FollowerOptions = FollowerOptions()) throws(TransferError) {
        self.spool = spool
        self.options = options
        fetch = PageFetch(spool: spool, handle: try EasyHandle(), caFile: options.caFile,
                          stopping: Self.stopping(spool))
    }

    private static func stopping(_ spool: Spool) -> () -> Bool {
        { StopSignal.received || spool.control.isStopping }
    }

    /// Follows pages until none is left (or a stop); returns false when another follower holds the lock.
    public func run() -> Bool {
        let lock: FileDescriptor
        do {
            lock = try FileDescriptor.open(spool.control.path(.followerLock), .readOnly, options: [.create],
                                           permissions: 0o600)
        } catch {
            spool.log("follower: cannot open \(spool.control.path(.followerLock)): \(error)")
            return false
        }
        defer { lock.closeQuietly() }
        guard (try? lock.tryLock()) == true else { return false }
        while !fetch.stopping() && !spool.isGone {
            let lists = Lists(spool).listsFollowingPages().sorted()
            if lists.isEmpty { return true }
            let following = Set(lists)
            tracks = tracks.filter { following.contains($0.key) }
            notBefore = notBefore.filter { following.contains($0.key) }
            // A paused farm starts no transfer, and a page is one.
            if spool.control.isPaused {
                // Ended too by what ends the follower: a stop, the spool gone, no list left to follow.
                Clock.poll(every: 0.1, unless: {
                    fetch.stopping() || spool.isGone || Lists(spool).listsFollowingPages().isEmpty
                }) { !spool.control.isPaused }
                continue
            }
            let now = Clock.monotonic()
            // Lists in turn, starting after the one served last: no list waits on a long one.
            let ordered = lists[(turn % lists.count)...] + lists[..<(turn % lists.count)]
            guard let id = ordered.first(where: { (notBefore[$0] ?? 0) <= now }) else {
                let wake = lists.compactMap { notBefore[$0] }.min() ?? now + 0.1
                Clock.pause(min(0.2, max(0.01, wake - now)), unless: fetch.stopping)
                continue
            }
            turn = (lists.firstIndex(of: id) ?? 0) + 1
            step(id)
        }
        return true
    }

    /// One step of list `id`: its cover when one is due, else its next page.
    private func step(_ id: String) {
        guard let state = Lists(spool).pageState(ofList: id), let record = spool.list(id),
              let source = record.paged else {
            // Not published whole yet (a `farm add` between renames), or removed: look again later.
            tracks[id] = nil
            postpone(id, by: 0.2)
            return
        }
        if tracks[id] == nil {
            do {
                tracks[id] = Track(reader: try PageReader(source), log: Lists(spool).pageLog(ofList: id))
            } catch {
                stop(id, at: state, "the source: \(error)", name: record.name)
                return
            }
        }
        if state.coverPending, let url = state.coverURL {
            makeCover(id, url, after: state)
            return
        }
        if state.done {
            // Its last line is in, and the rename that says so was cut short: finish it.
            do { try Lists(spool).finishPageLog(ofList: id) } catch {
                spool.log("\(record.name): \(error)")
                postpone(id, by: 1)
            }
            return
        }
        guard let url = state.next else {
            stop(id, at: state, "no next page recorded", name: record.name)
            return
        }
        followPage(id, url, after: state, name: record.name)
    }

    /// Fetches page `url` of list `id`, reads it and adds its items; a failure is retried as a download's,
    /// and ends the list once it is for good.
    private func followPage(_ id: String, _ url: String, after state: PageState, name: String) {
        guard var track = tracks[id] else { return }
        let number = state.fetched + 1
        let bytes: [UInt8]
        do { bytes = try fetch.body(url, maxSize: options.maxPageBytes,
                                       request: RequestOptions.decoded(spool.lists.requestOptions(ofList: id))) } catch {
            if error.kind == .aborted { return }
            track.attempts += 1
            if let delay = options.retry.delay(after: error, attempt: track.attempts) {
                tracks[id] = track
                postpone(id, by: delay)
                spool.log("\(name): page \(number) (\(url)): \(error); trying again in \(Int(delay.rounded(.up))) s")
            } else {
                stop(id, at: state, "page \(number): \(error)", name: name)
            }
            return
        }
        let page: PageReader.Page
        do { page = try track.reader.read(bytes, from: url) } catch {
            stop(id, at: state, "page \(number): \(error)", name: name)
            return
        }
        var next = state
        next.fetched = number
        next.page = url
        next.next = page.next
        next.done = page.next == nil
        track.fetched[Self.hash(url)] = number
        if number == 1, let following = page.next { track.aliasFirst(url, next: following) }
        // A page already fetched (the API loops back) ends the list, with the error it is.
        if let following = page.next, let earlier = track.fetched[Self.hash(following)] {
            next.next = nil
            next.done = true
            next.error = "page \(number): its next page, \(following), is page \(earlier) again"
        }
        next.skipped += page.skipped
        if state.fetched == 0 {
            next.title = page.title
            next.coverURL = page.cover
        }
        let records = page.items.map {
            JobRecord(url: $0.url, id: $0.id ?? "", title: $0.title, caption: $0.caption)
        }
        do {
            guard try Lists(spool).appendPage(records, byID: track.reader.source.id != nil, toList: id, after: state,
                                       state: next) != nil else {
                tracks[id] = nil  // someone else moved the log on: start from what it says
                return
            }
        } catch {
            spool.log("\(name): cannot add page \(number): \(error); trying again")
            track.attempts += 1
            tracks[id] = track
            postpone(id, by: min(30, 0.5 * Double(track.attempts)))
            return
        }
        track.attempts = 0
        tracks[id] = track
        notBefore[id] = nil
        if page.skipped > 0 { spool.log("\(name): page \(number): \(page.skipped) item(s) without a URL skipped") }
        if next.done { spool.log("\(name): all \(number) page(s) in") }
    }

    /// Ends list `id` with `reason` on it (`page 3: …`), keeping what its pages added.
    private func stop(_ id: String, at state: PageState, _ reason: String, name: String) {
        var stopped = state
        stopped.done = true
        stopped.next = nil
        stopped.error = reason
        do {
            _ = try Lists(spool).recordPageState(stopped, ofList: id, after: state)
            spool.log("\(name): stopped at \(reason)")
        } catch {
            spool.log("\(name): cannot record that it stopped (\(reason)): \(error)")
            postpone(id, by: 1)
        }
    }

    /// Downloads the cover of list `id` and makes its display image, then records it (or why not).
    private func makeCover(_ id: String, _ url: String, after state: PageState) {
        var next = state
        switch Cover.make(url, ofList: id, spool: spool, fetch: fetch, retry: options.retry, convert: options.convert) {
        case .made(let image): next.cover = image
        case .failed(let reason):
            next.coverError = reason
            spool.log("list \(id): no cover: \(reason)")
        case .stopped: return
        }
        do { _ = try Lists(spool).recordPageState(next, ofList: id, after: state) } catch {
            spool.log("list \(id): cannot record its cover: \(error)")
            postpone(id, by: 1)
        }
    }

    private func postpone(_ id: String, by seconds: Double) {
        notBefore[id] = Clock.monotonic() + seconds
    }

    /// FNV-1a 64 of a page's URL: the pages fetched are kept as these.
    static func hash(_ url: String) -> UInt64 {
        var hash = FNV1a()
        hash.add(url)
        return hash.value
    }
}
