import HTTPTypes
import Hummingbird
import Synchronization

/// Who may talk to the server, decided per request. Immutable; shared by every connection.
///
/// - Every request must name this server in its Host header (127.0.0.1, localhost, [::1] or the bound
///   host, with the port): a page on another site that rebinds its DNS name to 127.0.0.1 is refused.
///   A server bound to every address (0.0.0.0, ::) accepts any Host, as its user asked.
/// - A request that changes state (every POST, and DELETE) is refused when it carries an `Origin` that is not this
///   server's own, and unless it carries the token the server put in its page (`X-Farm-Token`), which a
///   page of another origin cannot read.
final class RequestGuard: Sendable {
    static let tokenHeader = HTTPField.Name("X-Farm-Token")!

    let token: String
    /// "http" or "https": what the page's own Origin starts with.
    private let scheme: String
    /// Accepted host names (without the port), lowercased; nil accepts any.
    private let names: Set<String>?
    /// The port the server listens on, stored once it is bound (before the first request).
    let port = Atomic<Int>(0)

    init(token: String, host: String, scheme: String) {
        self.token = token
        self.scheme = scheme
        if ["0.0.0.0", "::", "[::]", ""].contains(host) {
            names = nil
        } else {
            let bound = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            names = Set([bound, "127.0.0.1", "localhost", "[::1]"].map { $0.lowercased() })
        }
    }

    /// The accepted Host values (name:port), or nil for any.
    private var hosts: Set<String>? {
        let port = port.load(ordering: .acquiring)
        return names.map { Set($0.map { "\($0):\(port)" }) }
    }

    /// Refuses a request that does not name this server in its Host header.
    func checkHost(_ request: Request) throws(ServeError) {
        try checkHost(authority: request.head.authority)
    }

    /// Refuses an `authority` (Host) that does not name this server.
    func checkHost(authority: String?) throws(ServeError) {
        let host = authority?.lowercased() ?? ""
        if let hosts, !hosts.contains(host) {
            throw ServeError(.forbidden, "refused: this server answers only to \(hosts.sorted().first ?? "its own address"), not to Host \"\(host)\"")
        }
    }

    /// Refuses a request that changes the farm unless it comes from this server's page.
    func checkChange(_ request: Request) throws(ServeError) {
        let host = request.head.authority?.lowercased() ?? ""
        if let origin = request.headers[.origin], origin.lowercased() != scheme + "://" + host {
            throw ServeError(.forbidden, "refused: requests that change the farm must come from this server's own page, not from \(origin)")
        }
        guard let given = request.headers[Self.tokenHeader], Self.same(Array(given.utf8), Array(token.utf8)) else {
            throw ServeError(.forbidden, "refused: requests that change the farm need the token of this server's page (header X-Farm-Token)")
        }
    }

    /// Whether `origin` is this server's own, as a page it served sends it.
    func isOwnOrigin(_ origin: String, authority: String?) -> Bool {
        origin.lowercased() == scheme + "://" + (authority?.lowercased() ?? "")
    }

    /// Compares in time that depends on the lengths only, so a token or a password cannot be guessed byte
    /// by byte from response times.
    static func same(_ x: [UInt8], _ y: [UInt8]) -> Bool {
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
