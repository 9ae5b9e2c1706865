import FarmSystem
import FoundationEssentials
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import NIOCore

/// Who may use a server reachable from other machines (SPEC §12): with a password, every request needs
/// HTTP Basic authentication as user `farm`; an address that failed it more than `allowedFailures` times
/// in the last `window` seconds is answered 429 until those failures age out, right password or not, so
/// the password cannot be guessed at the network's speed. Shared by every connection.
final class ServeAccess: Sendable {
    static let user = "farm"
    static let allowedFailures = 10
    static let window = 60.0

    /// nil: no password asked (a server on a loopback address, whose users are this machine's).
    private let password: [UInt8]?
    /// Failed attempts by address, each its monotonic time; only addresses that failed are kept.
    private let failures = Locked<[String: [Double]]>([:])

    init(password: String?) {
        self.password = password.map { Array($0.utf8) }
    }

    /// Lets the request by, or throws the 401 (with the challenge) or 429 it gets. A request without
    /// credentials is not an attempt: a browser sends one before it asks its user.
    func check(_ request: Request, from address: String) throws(ServeError) {
        try check(request.headers, from: address)
    }

    /// `check` of a request's headers alone (a WebSocket's upgrade).
    func check(_ headers: HTTPFields, from address: String) throws(ServeError) {
        guard let password else { return }
        let now = ProcessInfo.processInfo.systemUptime
        let recent = failures.withLock { failures in
            let kept = (failures[address] ?? []).filter { now - $0 < Self.window }
            failures[address] = kept.isEmpty ? nil : kept
            return kept.count
        }
        if recent > Self.allowedFailures {
            throw ServeError(.tooManyRequests, "refused: too many failed passwords from \(address); try again in a minute")
        }
        guard let given = headers.basic else {
            throw ServeError(.unauthorized, "refused: this server needs the password of user \(Self.user) (HTTP Basic)")
        }
        // Both compared whole, each in time that depends on its length only.
        let rightUser = RequestGuard.same(Array(given.username.utf8), Array(Self.user.utf8))
        let rightPassword = RequestGuard.same(Array(given.password.utf8), password)
        guard rightUser && rightPassword else {
            failures.withLock { $0[address, default: []].append(now) }
            throw ServeError(.unauthorized, "refused: wrong user or password")
        }
    }

    /// What a 401 carries, so that a browser asks its user.
    static let challenge = "Basic realm=\"farm\", charset=\"UTF-8\""
}

/// The context of a request to farm serve: Hummingbird's, and the address the connection came from (what
/// `ServeAccess` counts failures by).
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
