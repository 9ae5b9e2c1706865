import FarmJSON

/// One call of JSON-RPC 2.0 as aria2 reads it: an `id` (any JSON value, given back as it came), a `method`
/// and positional `params`. A value.
public struct RPCRequest: Equatable, Sendable {
    public var id: JSONValue
    public var method: String
    public var params: [JSONValue]

    public init(id: JSONValue, method: String, params: [JSONValue]) {
        self.id = id
        self.method = method
        self.params = params
    }
}

/// What a body of `POST /jsonrpc` (or a WebSocket text frame) holds, read as aria2 reads it
/// (src/HttpServerBodyCommand.cc, src/rpc_helper.cc `processJsonRpcRequest`):
///
/// - not JSON: -32700 "Parse error.", id null;
/// - an object: one call; without an `id`, -32600 "Invalid Request." with id null; with an `id` but a
///   `method` that is not a string, -32600 with that id; `params` present but not an array, -32602
///   "Invalid params."; `jsonrpc` is not looked at;
/// - an array: a batch, each object one call as above, anything else in it skipped (aria2 skips it);
/// - any other JSON: -32600, id null.
///
/// Never traps, whatever the bytes (it is a fuzz target: `bin/fuzz rpc`). Stateless; any thread.
public enum RPCMessage: Equatable, Sendable {
    case single(Call)
    case batch([Call])
    /// The body as a whole is refused: the error goes back with id null.
    case refused(RPCError)

    /// One element: a request to run, or the error its id gets back without running anything.
    public enum Call: Equatable, Sendable {
        case request(RPCRequest)
        case invalid(RPCError, id: JSONValue)
    }

    /// The most a body may weigh: aria2 takes large addTorrent bodies; farm has none, so 4 MiB is plenty.
    public static let maxBytes = 4 << 20

    public static func parse(_ bytes: some Collection<UInt8>) -> RPCMessage {
        guard bytes.count <= maxBytes, let json = try? JSONParser.parse(bytes) else { return .refused(.parse) }
        switch json {
        case .object: return .single(call(json))
        case .array(let elements):
            return .batch(elements.compactMap { element in
                guard case .object = element else { return nil }
                return call(element)
            })
        default: return .refused(.invalidRequest)
        }
    }

    private static func call(_ object: JSONValue) -> Call {
        guard let id = object["id"] else { return .invalid(.invalidRequest, id: .null) }
        guard case .string(let method)? = object["method"] else { return .invalid(.invalidRequest, id: id) }
        switch object["params"] {
        case nil: return .request(RPCRequest(id: id, method: method, params: []))
        case .array(let params)?: return .request(RPCRequest(id: id, method: method, params: params))
        default: return .invalid(.invalidParams, id: id)
        }
    }
}

/// Answers as JSON-RPC 2.0 writes them: `{"id": …, "jsonrpc": "2.0", "result": …}` or `… "error": {…}`.
public enum RPCResponse {
    public static func result(_ value: JSONValue, id: JSONValue) -> JSONValue {
        .object([JSONMember("id", id), JSONMember("jsonrpc", .string("2.0")), JSONMember("result", value)])
    }

    public static func error(_ error: RPCError, id: JSONValue) -> JSONValue {
        .object([JSONMember("id", id), JSONMember("jsonrpc", .string("2.0")), JSONMember("error", errorObject(error))])
    }

    /// `{"code": …, "message": …}`, as a multicall's failed element holds it too.
    public static func errorObject(_ error: RPCError) -> JSONValue {
        .object([JSONMember("code", .number(JSONNumber(error.code))), JSONMember("message", .string(error.message))])
    }

    /// A notification of aria2 over WebSocket: `{"jsonrpc": "2.0", "method": "aria2.onDownloadStart",
    /// "params": [{"gid": "…"}]}`.
    public static func notification(_ method: String, gid: String) -> JSONValue {
        .object([JSONMember("jsonrpc", .string("2.0")), JSONMember("method", .string(method)),
                 JSONMember("params", .array([.object([JSONMember("gid", .string(gid))])]))])
    }
}
