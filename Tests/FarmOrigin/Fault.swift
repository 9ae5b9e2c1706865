import FarmSystem
import Glibc

/// A misbehaviour the origin shows on one path, set from a test with `Origin.inject(_:at:times:)`.
///
/// Three kinds, which combine on one path:
/// - answers (`status`, `redirect`, `reset(afterBytes: nil)`) replace the response altogether;
/// - body endings (`cutShort`, `stall`, `reset(afterBytes: K)`) send the real headers, then end the body early;
/// - modifiers (`throttle`, `rangesOff`) change how the real resource is served.
public enum Fault: Sendable, Hashable, CustomStringConvertible {
    /// At most this many body bytes per second in each response on the path, so a transfer lasts long enough
    /// to be killed half-way.
    case throttle(bytesPerSecond: Int)
    /// As `throttle`, for the responses to a Range that starts at byte `from` alone: one slow connection
    /// among the pieces of one file (the others, and a piece taken over from it, go at full speed).
    case throttleRange(from: Int, bytesPerSecond: Int)
    /// As `throttle`, for the responses on the `ordinal`th connection (from 1) that asked for the path
    /// alone, whatever range it asks: one slow connection among a client's several.
    case throttleConnection(ordinal: Int, bytesPerSecond: Int)
    /// Answers `status` (500, 503, 429, 408, 404, 410, 403…) with a small text body, and a `Retry-After`
    /// when `retryAfter` is given. With `times: N` it is "fail N times, then serve normally".
    case status(Int, retryAfter: RetryAfter? = nil)
    /// Answers `status` (301, 302, 307…) with `Location: location`, sent as given: another path of this origin
    /// (`origin.url(for:)`), or anything at all (`file:///etc/passwd`, `ftp://x/`).
    case redirect(to: String, status: Int = 302)
    /// Sends the headers with the full Content-Length, then only this many body bytes, then closes (FIN).
    case cutShort(afterBytes: Int)
    /// Aborts the connection with a TCP reset (SO_LINGER 0): before any response when nil, else after the
    /// headers and this many body bytes.
    case reset(afterBytes: Int? = nil)
    /// Sends the headers and this many body bytes, then nothing more, without closing, until the client
    /// leaves or the origin stops.
    case stall(afterBytes: Int)
    /// Ignores Range and If-Range: always 200 with the whole body and `Accept-Ranges: none`.
    case rangesOff
    /// Ignores If-Range alone: a Range is answered with a 206 of the bytes served now, whatever validator the
    /// client's bytes came with (as some CDNs do, and aria2 #2280 met).
    case ifRangeIgnored

    public var description: String {
        switch self {
        case .throttle(let rate): "throttle(\(rate) B/s)"
        case .throttleRange(let from, let rate): "throttle(\(rate) B/s from byte \(from))"
        case .throttleConnection(let ordinal, let rate): "throttle(\(rate) B/s on connection \(ordinal))"
        case .status(let code, let after): after.map { "status(\(code), Retry-After: \($0.value))" } ?? "status(\(code))"
        case .redirect(let location, let code): "redirect(\(code) → \(location))"
        case .cutShort(let k): "cutShort(after \(k) B)"
        case .reset(let k): k.map { "reset(after \($0) B)" } ?? "reset(before the response)"
        case .stall(let k): "stall(after \(k) B)"
        case .rangesOff: "rangesOff"
        case .ifRangeIgnored: "ifRangeIgnored"
        }
    }

    var isAnswer: Bool {
        switch self {
        case .status, .redirect, .reset(afterBytes: nil): true
        default: false
        }
    }
}

/// How one body ends: whole, or early in one of the ways a `Fault` asks for.
enum BodyEnding: Sendable, Equatable {
    case complete
    case cutShort(afterBytes: Int)
    case reset(afterBytes: Int)
    case stall(afterBytes: Int)

    /// The body bytes to send before ending, out of `count`.
    func bytesToSend(of count: Int) -> Int {
        switch self {
        case .complete: count
        case .cutShort(let k), .reset(let k), .stall(let k): min(max(k, 0), count)
        }
    }
}

/// What the faults of a path make of one request, decided once when it arrives.
struct FaultPlan: Sendable {
    /// Replaces the response when set.
    var answer: Fault?
    var ending = BodyEnding.complete
    var bytesPerSecond: Int?
    var rangesOff = false
    var ifRangeIgnored = false
    /// The faults applied, for the request log.
    var applied: [Fault] = []
}

/// The faults set on each path, with how many more requests each one is for. Owned by one origin;
/// the test's threads write it and the origin's event loops read it, so every access takes the lock.
final class FaultTable: Sendable {
    private struct Rule: Sendable {
        var fault: Fault
        /// Requests left; nil for as long as the rule stays.
        var remaining: Int?
    }

    private let rules = Locked<[String: [Rule]]>([:])
    /// The client ports that asked for each path, in the order they first did (`throttleConnection`).
    private let ports = Locked<[String: [Int]]>([:])

    func add(_ fault: Fault, at path: String, times: Int?) {
        precondition(times.map { $0 > 0 } ?? true, "times must be positive")
        rules.withLock { $0[path, default: []].append(Rule(fault: fault, remaining: times)) }
    }

    func clear(_ path: String) {
        rules.withLock { $0[path] = nil }
    }

    func clearAll() {
        rules.withLock { $0.removeAll() }
    }

    func faults(at path: String) -> [Fault] {
        rules.withLock { $0[path, default: []].map(\.fault) }
    }

    /// Decides what the faults of `path` do to one request, and counts it against the rules applied.
    /// An answer counts every request; the other faults count only the requests they shape, the GET
    /// requests for a resource that exists (a HEAD or a 404 has no body to cut, throttle or stall).
    /// `rangeStart`: the first byte the request's Range asks for, if it has one.
    /// `clientPort`: the port of the connection it came over.
    func plan(for path: String, sendsBody: Bool, rangeStart: Int? = nil, clientPort: Int? = nil) -> FaultPlan {
        let connection = clientPort.map { port in
            ports.withLock { seen in
                if let known = seen[path]?.firstIndex(of: port) { return known + 1 }
                seen[path, default: []].append(port)
                return seen[path]!.count
            }
        }
        return rules.withLock { table in
            guard var list = table[path], !list.isEmpty else { return FaultPlan() }
            var plan = FaultPlan()
            var used: [Int] = []
            if let index = list.firstIndex(where: { $0.fault.isAnswer }) {
                plan.answer = list[index].fault
                used = [index]
            } else if sendsBody {
                for (index, rule) in list.enumerated() {
                    switch rule.fault {
                    case .throttle(let rate) where plan.bytesPerSecond == nil:
                        plan.bytesPerSecond = max(rate, 1)
                    case .throttleRange(let from, let rate) where plan.bytesPerSecond == nil && rangeStart == from:
                        plan.bytesPerSecond = max(rate, 1)
                    case .throttleConnection(let ordinal, let rate) where connection == ordinal:
                        // Over a path-wide throttle: the slow connection is slower than the rest.
                        plan.bytesPerSecond = min(plan.bytesPerSecond ?? .max, max(rate, 1))
                    case .rangesOff where !plan.rangesOff:
                        plan.rangesOff = true
                    case .ifRangeIgnored where !plan.ifRangeIgnored:
                        plan.ifRangeIgnored = true
                    case .cutShort(let k) where plan.ending == .complete:
                        plan.ending = .cutShort(afterBytes: k)
                    case .stall(let k) where plan.ending == .complete:
                        plan.ending = .stall(afterBytes: k)
                    case .reset(let k?) where plan.ending == .complete:
                        plan.ending = .reset(afterBytes: k)
                    default:
                        continue  // a second fault of a kind already applied waits for its turn
                    }
                    used.append(index)
                }
            }
            for index in used {
                plan.applied.append(list[index].fault)
                if let left = list[index].remaining { list[index].remaining = left - 1 }
            }
            list.removeAll { $0.remaining == 0 }
            table[path] = list.isEmpty ? nil : list
            return plan
        }
    }
}

/// A `Retry-After` as a server sends it: a number of seconds (an integer literal), or an HTTP date that
/// many seconds after the response (RFC 9110 §10.2.3 allows both).
public enum RetryAfter: Sendable, Hashable, ExpressibleByIntegerLiteral {
    case seconds(Int)
    case date(inSeconds: Int)

    public init(integerLiteral seconds: Int) { self = .seconds(seconds) }

    /// The header's value, for a response sent now.
    var value: String {
        switch self {
        case .seconds(let seconds): String(seconds)
        case .date(let seconds): HTTPDate.format(Int(time(nil)) + seconds)
        }
    }
}
