/// A JSON-RPC error as aria2 answers it (SPEC §16): `{"code": …, "message": …}`. aria2 answers every refusal
/// of a method, a wrong token included, with code 1 and one sentence; the codes of JSON-RPC 2.0 itself are
/// for a request that is not one. The messages are aria2's own (src/RpcMethod*.cc, src/rpc_helper.cc), so a
/// client that reads them reads farm's the same way. A value.
public struct RPCError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int
    public let message: String

    public init(code: Int, _ message: String) {
        self.code = code
        self.message = message
    }

    /// What a method refuses with: code 1, as aria2's `RpcMethod::createErrorResponse`.
    public init(_ message: String) {
        self.init(code: 1, message)
    }

    public var description: String { "\(code): \(message)" }

    /// The body is not JSON.
    public static let parse = RPCError(code: -32700, "Parse error.")
    /// JSON, but not a request: no `id`, a `method` that is not a string, a document that is not an object.
    public static let invalidRequest = RPCError(code: -32600, "Invalid Request.")
    /// `params` that is not an array (aria2 takes no named parameters).
    public static let invalidParams = RPCError(code: -32602, "Invalid params.")
    /// No `token:` parameter, or the wrong secret.
    public static let unauthorized = RPCError("Unauthorized")

    /// aria2's answer to a method it does not have, BitTorrent's and Metalink's among them here (aria2 built
    /// without them answers the same).
    public static func noSuchMethod(_ name: String) -> RPCError { RPCError("No such method: \(name)") }

    /// The HTTP status aria2 sends a lone request's error with (HttpServerBodyCommand::sendJsonRpcResponse).
    public var httpStatus: Int {
        switch code {
        case 1, -32600: 400
        case -32601: 404
        default: 500
        }
    }
}
