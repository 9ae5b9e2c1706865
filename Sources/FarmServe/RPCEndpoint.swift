import FarmRPC
import HTTPTypes
import Hummingbird
import NIOCore

/// aria2's JSON-RPC over HTTP at /jsonrpc (SPEC §16): the body goes to FarmRPC's `Aria2RPC`, whose answer
/// comes back with aria2's HTTP status. Its guard is aria2's `token:SECRET`, not the page's token (clients
/// of aria2 do not have it); the Host check and, off loopback, the password of SPEC §12 come first, as for
/// every request.
///
/// Without `--rpc-secret` any page of another site could post to it, so a request that carries an `Origin`
/// other than this server's is refused then; with a secret, which such a page cannot know, any origin may
/// call (web front-ends of aria2 are pages of their own origin), as aria2's `--rpc-allow-origin-all`.
/// Immutable; shared by every connection.
struct RPCEndpoint: Sendable {
    static let path = "/jsonrpc"

    let rpc: Aria2RPC
    let guarding: RequestGuard

    func respond(to request: Request) async throws -> Response {
        switch request.method {
        case .options:
            // A browser's preflight: what aria2 answers, for a page of another origin.
            var response = Reply.bytes([], type: "text/plain", status: 200)
            if rpc.hasSecret, request.headers[.origin] != nil {
                response.headers[.accessControlAllowOrigin] = "*"
                response.headers[.accessControlAllowMethods] = "POST, GET, OPTIONS"
                response.headers[.accessControlMaxAge] = "1728000"
                if let asked = request.headers[.accessControlRequestHeaders] {
                    response.headers[.accessControlAllowHeaders] = asked
                }
            }
            return response
        case .post:
            break
        default:
            // A GET is a WebSocket's upgrade, answered before it comes here; anything else is refused.
            throw Refusal(error: ServeError(.methodNotAllowed, "\(Self.path) takes POST (or a WebSocket)"),
                                allow: "POST, OPTIONS")
        }
        if !rpc.hasSecret, let origin = request.headers[.origin], !guarding.isOwnOrigin(origin, authority: request.head.authority) {
            throw ServeError(.forbidden, "refused: aria2's RPC of this server takes calls from pages of other origins "
                             + "only with --rpc-secret (not from \(origin))")
        }
        var request = request
        let body: ByteBuffer
        do { body = try await request.collectBody(upTo: RPCMessage.maxBytes) } catch {
            throw ServeError(.contentTooLarge, "the body is too large (\(RPCMessage.maxBytes >> 20) MiB at most)")
        }
        let rpc = rpc, bytes = Array(body.readableBytesView)
        let answer = try await Blocking.run { rpc.answer(bytes) }
        // aria2 answers a wrong token a second late, so a secret is not guessed at the network's speed.
        if answer.unauthorized { try? await Task.sleep(for: .seconds(1)) }
        var response = Reply.bytes(answer.body, type: "application/json-rpc", status: answer.status)
        if rpc.hasSecret, request.headers[.origin] != nil { response.headers[.accessControlAllowOrigin] = "*" }
        return response
    }
}
