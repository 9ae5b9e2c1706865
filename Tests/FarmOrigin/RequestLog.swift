import FarmSystem
/// One request the origin received, as a test sees it in `Origin.requests`. A value: a snapshot of the
/// record at the time it was read (a body still being sent goes on counting in the origin's log).
public struct LoggedRequest: Sendable, Equatable, CustomStringConvertible {
    /// The values of header `name` (any case).
    public func header(_ name: String) -> [String] {
        headers.filter { $0.name == name.lowercased() }.map(\.value)
    }

    /// Order of arrival, from 0 when the origin started.
    public let sequence: Int
    public let method: String
    /// The path, without the query.
    public let path: String
    public let query: String?
    /// The Range header as received.
    public let range: String?
    /// The If-Range header as received.
    public let ifRange: String?
    /// The client's port: requests that share it came over one (kept-alive) connection.
    public let clientPort: Int?
    /// Every header as received, its name in lower case, in order.
    public let headers: [LoggedHeader]
    /// The status answered; nil while undecided, or when the connection was reset before any response.
    public internal(set) var status: Int?
    /// Body bytes handed to the connection so far.
    public internal(set) var bodyBytes: Int
    /// Whether the whole body was sent (false for a body cut, stalled or reset, and for one still going).
    public internal(set) var complete: Bool
    /// The faults that shaped this response.
    public internal(set) var faults: [Fault]
    /// When the request arrived and when its response ended (sent whole, cut, reset or abandoned), in
    /// seconds of the monotonic clock: what tests count concurrent requests and requests a second with.
    public let arrived: Double
    public internal(set) var ended: Double?

    /// K of `Range: bytes=K-` or `bytes=K-L`: where a resumed download asked to start.
    public var rangeStart: Int? { RangeRequest.firstByte(of: range) }

    public var description: String {
        var text = "#\(sequence) \(method) \(path)"
        if let range { text += " [Range: \(range)]" }
        text += " → \(status.map(String.init) ?? "none"), \(bodyBytes) B" + (complete ? "" : " (incomplete)")
        if !faults.isEmpty { text += " " + faults.map(\.description).joined(separator: ", ") }
        return text
    }
}

/// How many bodies (200 and 206 answers to GET) and 304s an origin gave, and the body bytes of those
/// bodies: what a test of `farm sync` counts. A value.
public struct ServedCounts: Sendable, Equatable, CustomStringConvertible {
    public var bodies = 0
    public var notModified = 0
    public var bodyBytes = 0

    public init(bodies: Int = 0, notModified: Int = 0, bodyBytes: Int = 0) {
        self.bodies = bodies
        self.notModified = notModified
        self.bodyBytes = bodyBytes
    }

    mutating func add(_ request: LoggedRequest) {
        guard request.method == "GET" else { return }
        if request.status == 200 || request.status == 206 {
            bodies += 1
            bodyBytes += request.bodyBytes
        } else if request.status == 304 {
            notModified += 1
        }
    }

    public var description: String { "\(bodies) bodies (\(bodyBytes) B), \(notModified) not modified" }
}

/// Every request an origin received, in order. Owned by one origin; written by its event loops and
/// read by the test's threads, so every access takes the lock.
final class RequestLog: Sendable {
    private struct Entries {
        /// Sequence number of `list[0]`: numbers go on growing across `clear()`, so a body still in flight
        /// never updates a newer request's record.
        var base = 0
        var list: [LoggedRequest] = []
        /// The requests in flight (see `InFlight`), and the most there were at once.
        var inFlight: Set<Int> = []
        var mostInFlight = 0
        var atTheMost: [Int] = []
    }

    private let entries = Locked(Entries())

    /// Records a new request; returns its sequence number for the updates that follow.
    func begin(method: String, path: String, query: String?, range: String?, ifRange: String?,
               clientPort: Int?, headers: [LoggedHeader] = []) -> Int {
        entries.withLock { entries in
            let sequence = entries.base + entries.list.count
            entries.list.append(LoggedRequest(sequence: sequence, method: method, path: path, query: query,
                                              range: range, ifRange: ifRange, clientPort: clientPort, headers: headers, status: nil,
                                              bodyBytes: 0, complete: false, faults: [], arrived: Clock.monotonic()))
            entries.inFlight.insert(sequence)
            if entries.inFlight.count > entries.mostInFlight {
                entries.mostInFlight = entries.inFlight.count
                entries.atTheMost = entries.inFlight.sorted()
            }
            return sequence
        }
    }

    /// Request `sequence` is no longer in flight: called before the response's last bytes are handed to
    /// the connection (the client cannot have the whole response before), and by `end` for any response
    /// that ends otherwise. Once; later calls change nothing.
    func through(_ sequence: Int) {
        _ = entries.withLock { $0.inFlight.remove(sequence) }
    }

    /// The most requests in flight at once since the start (or the last `clear()`), and their sequence
    /// numbers the first time there were that many.
    var mostInFlight: (count: Int, sequences: [Int]) { entries.withLock { ($0.mostInFlight, $0.atTheMost) } }

    func update(_ sequence: Int, _ change: (inout LoggedRequest) -> Void) {
        entries.withLock { entries in
            let index = sequence - entries.base
            if entries.list.indices.contains(index) { change(&entries.list[index]) }
        }
    }

    /// Marks the response to request `sequence` as ended now.
    func end(_ sequence: Int) {
        through(sequence)
        update(sequence) { $0.ended = Clock.monotonic() }
    }

    var all: [LoggedRequest] { entries.withLock { $0.list } }

    var bodyBytes: Int { entries.withLock { $0.list.reduce(0) { $0 + $1.bodyBytes } } }

    /// Forgets the requests so far (bodies still in flight are no longer counted in the log; they still
    /// are in flight, and the most at once starts again from them).
    func clear() {
        entries.withLock { entries in
            entries.base += entries.list.count
            entries.list.removeAll()
            entries.mostInFlight = entries.inFlight.count
            entries.atTheMost = entries.inFlight.sorted()
        }
    }
}

/// One header of a logged request, its name in lower case.
public struct LoggedHeader: Sendable, Equatable {
    public let name: String
    public let value: String
}
