import FarmControl
import FarmDesired
import FarmJSON
import FarmLists
import FarmSpool
import FarmStatus
import FarmSystem
import FarmTransfer
import FoundationEssentials

/// aria2's JSON-RPC 2.0 for one spool (SPEC §16): reads a body (`RPCMessage`), checks each call's
/// `token:SECRET`, runs it through `Control`'s verbs (the same as the CLI's, `farm top`'s and the page's) and
/// writes the answer with aria2's names, types and errors. No transport: FarmServe hands it the bodies of
/// `POST /jsonrpc` and the frames of its WebSocket.
///
/// Blocking (it reads and writes the spool): an async caller runs it off its cooperative threads. Shared by
/// every connection; what it keeps (the stopped downloads a client purged) is behind a lock.
public final class Aria2RPC: Sendable {
    /// The version farm answers `aria2.getVersion` with: that of the aria2 whose RPC it speaks.
    public static let version = "1.37.0"

    /// What `system.listMethods` lists: aria2's methods that mean something in farm.
    public static let methods = [
        "aria2.addUri", "aria2.remove", "aria2.forceRemove", "aria2.pause", "aria2.forcePause", "aria2.pauseAll",
        "aria2.forcePauseAll", "aria2.unpause", "aria2.unpauseAll", "aria2.changePosition", "aria2.tellStatus",
        "aria2.getUris", "aria2.getFiles", "aria2.tellActive", "aria2.tellWaiting", "aria2.tellStopped",
        "aria2.getOption", "aria2.getGlobalOption", "aria2.changeGlobalOption", "aria2.purgeDownloadResult",
        "aria2.removeDownloadResult", "aria2.getVersion", "aria2.getSessionInfo", "aria2.getGlobalStat",
        "system.multicall", "system.listMethods", "system.listNotifications",
    ]

    /// What `system.listNotifications` lists: aria2's, but BitTorrent's.
    public static let notifications = [
        "aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop", "aria2.onDownloadComplete",
        "aria2.onDownloadError",
    ]

    /// One answer: the HTTP status aria2 sends it with, the body (one line of JSON), and whether a call was
    /// refused for its token (aria2 answers those a second late, so a secret is not guessed at speed).
    public struct Answer: Sendable {
        public let status: Int
        public let body: [UInt8]
        public let unauthorized: Bool
    }

    public let control: Control
    /// `--rpc-secret`: nil takes any token, or none, as aria2 without `--rpc-secret`.
    private let secret: [UInt8]?
    /// aria2's `dir`: where a download without one of its own is delivered.
    public let folder: String
    private let sessionID = Nonce.nextHex() + Nonce.nextHex()
    /// The stopped downloads `purgeDownloadResult` and `removeDownloadResult` took out of `tellStopped`, by
    /// list and job number (hidden while they stay stopped); their files stay, as aria2's do. Kept while this
    /// server runs, as aria2 keeps its results.
    private let forgotten = Locked<[String: JobSet]>([:])
    /// The rows of the pages of `tell*`, their tables kept while they do not change.
    private let windows = ListWindows()
    /// The downloads `aria2.remove` took out of the spool, shown stopped (`removed`) until purged: in memory,
    /// as aria2 keeps its results.
    private let removed = Locked<[String: Aria2Download]>([:])

    /// Whether calls need `token:SECRET`.
    public var hasSecret: Bool { secret != nil }

    public init(control: Control, secret: String?, folder: String) {
        self.control = control
        self.secret = secret.map { Array($0.utf8) }
        self.folder = folder
    }

    // MARK: - Bodies and calls

    /// The answer to `body`, as aria2 answers a POST to /jsonrpc or a WebSocket frame.
    public func answer(_ body: some Collection<UInt8>) -> Answer {
        switch RPCMessage.parse(body) {
        case .refused(let error):
            return Answer(status: error.httpStatus, body: Self.encode(RPCResponse.error(error, id: .null)),
                          unauthorized: false)
        case .single(let call):
            let (response, error, unauthorized) = run(call)
            return Answer(status: error?.httpStatus ?? 200, body: Self.encode(response), unauthorized: unauthorized)
        case .batch(let calls):
            var unauthorized = false
            let responses = calls.map { call in
                let (response, _, refused) = run(call)
                unauthorized = unauthorized || refused
                return response
            }
            return Answer(status: 200, body: Self.encode(JSONValue.array(responses)), unauthorized: unauthorized)
        }
    }

    private func run(_ call: RPCMessage.Call) -> (response: JSONValue, error: RPCError?, unauthorized: Bool) {
        switch call {
        case .invalid(let error, let id):
            return (RPCResponse.error(error, id: id), error, false)
        case .request(let request):
            switch execute(request.method, request.params) {
            case .success(let value): return (RPCResponse.result(value, id: request.id), nil, false)
            case .failure(let error):
                return (RPCResponse.error(error, id: request.id), error, error == .unauthorized)
            }
        }
    }

    /// One method with its parameters, the token first among them: its result or its error.
    public func execute(_ method: String, _ params: [JSONValue]) -> Result<JSONValue, RPCError> {
        Result { () throws(RPCError) in
            switch method {
            // Asked before any token, as aria2 answers them.
            case "system.listMethods": return .array(Self.methods.map { .string($0) })
            case "system.listNotifications": return .array(Self.notifications.map { .string($0) })
            case "system.multicall": return try multicall(params)
            default:
                guard Self.methods.contains(method) else {
                    // aria2 checks the token of a method it lacks too, then says it has none.
                    _ = try authorize(params)
                    throw RPCError.noSuchMethod(method)
                }
                return try call(method, Parameters(try authorize(params)))
            }
        }
    }

    /// aria2's `RpcMethod::authorize`: a first parameter `token:…` is taken off; with a secret, it must be it.
    private func authorize(_ params: [JSONValue]) throws(RPCError) -> [JSONValue] {
        var params = params
        var token: [UInt8] = []
        if case .string(let first)? = params.first, first.hasPrefix("token:") {
            token = Array(first.utf8.dropFirst(6))
            params.removeFirst()
        }
        if let secret, !Self.same(token, secret) { throw RPCError.unauthorized }
        return params
    }

    /// Equal, in time that depends on the lengths only.
    private static func same(_ x: [UInt8], _ y: [UInt8]) -> Bool {
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// aria2's `system.multicall`: each `{"methodName": …, "params": […]}` run as a call of its own, its
    /// result wrapped in an array, its error as `{"code", "message"}`.
    private func multicall(_ params: [JSONValue]) throws(RPCError) -> JSONValue {
        let specs = try Parameters(params).required(0, as: "array", \.arrayValue)
        return .array(specs.map { spec -> JSONValue in
            guard case .object = spec else {
                return RPCResponse.errorObject(RPCError("system.multicall expected struct."))
            }
            guard case .string(let name)? = spec["methodName"] else {
                return RPCResponse.errorObject(RPCError("Missing methodName."))
            }
            guard name != "system.multicall" else {
                return RPCResponse.errorObject(RPCError("Recursive system.multicall forbidden."))
            }
            var inner: [JSONValue] = []
            if case .array(let given)? = spec["params"] { inner = given }
            switch execute(name, inner) {
            case .success(let value): return .array([value])
            case .failure(let error): return RPCResponse.errorObject(error)
            }
        })
    }

    // MARK: - Methods

    private func call(_ method: String, _ params: Parameters) throws(RPCError) -> JSONValue {
        switch method {
        case "aria2.getVersion":
            return .object([JSONMember("version", .string(Self.version)),
                            JSONMember("enabledFeatures", .array(["HTTPS", "Message Digest"].map { .string($0) }))])
        case "aria2.getSessionInfo":
            return .object([JSONMember("sessionId", .string(sessionID))])
        case "aria2.addUri":
            return .string(try addUri(params))
        case "aria2.tellStatus":
            let download = try find(params.gid(0))
            return download.status(keys: try params.keys(1))
        case "aria2.getUris":
            let download = try find(params.gid(0))
            // aria2 keeps the URIs of what it runs or will run only.
            guard !download.isStopped else { throw RPCError("No URI data is available for GID#\(download.gid)") }
            return download.uriObjects
        case "aria2.getFiles":
            return try find(params.gid(0)).files
        case "aria2.getOption":
            let download = try find(params.gid(0))
            var options = [JSONMember("dir", .string(download.folder ?? ""))]
            if let out = download.out { options.append(JSONMember("out", .string(out))) }
            return .object(options)
        case "aria2.tellActive":
            let keys = try params.keys(0)
            let lists = self.lists()
            return .array(lists.downloads(.active, 0..<lists.count(.active)).map { $0.status(keys: keys) })
        case "aria2.tellWaiting":
            return try page(params, .waiting)
        case "aria2.tellStopped":
            return try page(params, .stopped)
        case "aria2.remove", "aria2.forceRemove":
            let download = try find(params.gid(0))
            guard !download.isStopped else {
                throw RPCError("Active Download not found for GID#\(download.gid)")
            }
            try run { () throws(ControlError) in
                _ = try control.removeItem(.id(download.listID), id: download.resource.id)
            }
            var result = download
            result.removed = true
            removed.withLock { $0[download.gid] = result }
            return .string(download.gid)
        case "aria2.pause", "aria2.forcePause":
            // A download added here is a list of its own, held alone while the others go on (Hold.swift); one
            // of a list of many (`farm add`) cannot be: aria2's refusal of a download it cannot pause now.
            let download = try find(params.gid(0))
            guard !download.isStopped, !download.held, control.spool.list(download.listID)?.total == 1 else {
                throw RPCError("GID#\(download.gid) cannot be paused now")
            }
            try run { () throws(ControlError) in _ = try control.hold(list: download.listID) }
            return .string(download.gid)
        case "aria2.unpause":
            let download = try find(params.gid(0))
            guard download.held else {
                guard download.state == .paused else { throw RPCError("GID#\(download.gid) cannot be unpaused now") }
                throw RPCError("GID#\(download.gid) cannot be unpaused now: the whole farm is paused; aria2.unpauseAll resumes it")
            }
            try run { () throws(ControlError) in _ = try control.release(list: download.listID) }
            return .string(download.gid)
        case "aria2.pauseAll", "aria2.forcePauseAll", "aria2.unpauseAll":
            try run { () throws(ControlError) in _ = try control.setPaused(method != "aria2.unpauseAll") }
            return .string("OK")
        case "aria2.changePosition":
            return try changePosition(params)
        case "aria2.getGlobalStat":
            // The counts of the summary as of the call; the speed of the active alone (a few rows).
            let lists = self.lists()
            let active = lists.downloads(.active, 0..<lists.count(.active))
            let count = { (kind: Aria2Lists.Kind) in JSONValue.string(String(lists.count(kind))) }
            return .object([
                JSONMember("downloadSpeed", .string(String(active.reduce(0) { $0 + $1.downloadSpeed }))),
                JSONMember("uploadSpeed", .string("0")),
                JSONMember("numActive", count(.active)), JSONMember("numWaiting", count(.waiting)),
                JSONMember("numStopped", count(.stopped)), JSONMember("numStoppedTotal", count(.stopped)),
            ])
        case "aria2.getGlobalOption":
            // From the desired state itself: the watcher's summary may be a second behind a change just made.
            let downloads = control.spool.control.workerCounts().desired * control.spool.control.desired().transfers
            return .object([
                JSONMember("dir", .string(folder)),
                JSONMember("max-concurrent-downloads", .string(String(downloads))),
                JSONMember("max-overall-download-limit", .string(String(control.bandwidthLimit.bytesPerSecond ?? 0))),
                JSONMember("split", .string("5")),
                JSONMember("max-connection-per-server", .string("1")),
            ])
        case "aria2.changeGlobalOption":
            try changeGlobalOption(params)
            return .string("OK")
        case "aria2.purgeDownloadResult":
            // Every job finished now, list by list: its finished folders, not its rows.
            var stopped: [String: JobSet] = [:]
            for list in StatusScan.orderedListRecords(control.spool) {
                for outcome in [Outcome.done, .failed] {
                    StatusScan.jobSet(control.spool, list.id, outcome).compare(
                        with: JobSet(), onlyHere: { _ = stopped[list.id, default: JobSet()].insert($0) }, onlyThere: { _ in })
                }
            }
            forgotten.withLock { forgotten in
                for (list, jobs) in stopped {
                    jobs.compare(with: JobSet(), onlyHere: { _ = forgotten[list, default: JobSet()].insert($0) },
                                 onlyThere: { _ in })
                }
            }
            removed.withLock { $0.removeAll() }
            return .string("OK")
        case "aria2.removeDownloadResult":
            let gid = try params.gid(0)
            guard let download = try? find(gid), download.isStopped else {
                throw RPCError("Could not remove download result of GID#\(gid)")
            }
            if !download.removed { forgotten.withLock { _ = $0[download.listID, default: JobSet()].insert(download.job) } }
            removed.withLock { $0[download.gid] = nil }
            return .string("OK")
        default:
            throw RPCError.noSuchMethod(method)
        }
    }

    /// aria2's `addUri(uris, options?, position?)`: the URIs are one download at mirrors; `dir`, `out`,
    /// `header`, `checksum` (sha-256), `split` and `max-connection-per-server` are taken, other options left
    /// as aria2 leaves those it cannot take in that place.
    private func addUri(_ params: Parameters) throws(RPCError) -> String {
        let uris = try params.required(0, as: "array", \.arrayValue)
            .compactMap(\.stringValue)
        guard !uris.isEmpty else { throw RPCError("URI is not provided.") }
        let options = try params.optional(1, \.objectValue) ?? []
        if let position = try params.optional(2, \.intValue), position < 0 {
            throw RPCError("Position must be greater than or equal to 0.")
        }
        var download = Control.Download(urls: uris, folder: folder)
        var split = 5, perServer = 1
        for member in options {
            let values: [String]
            switch member.value {
            case .string(let value): values = [value]
            case .number(let number): values = [number.literal]
            case .array(let items) where member.key == "header":
                values = items.compactMap(\.stringValue)
            default: continue
            }
            guard let value = values.first else { continue }
            switch member.key {
            case "dir": download.folder = value
            case "out": download.out = value
            case "header": download.headers += values
            case "checksum":
                let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, ["sha-256", "sha256"].contains(parts[0].lowercased()) else {
                    throw RPCError("farm checks SHA-256 checksums only (checksum=sha-256=HEX), not \(value)")
                }
                download.sha256 = parts[1].lowercased()
            case "split", "max-connection-per-server":
                guard let number = Int(value), number >= 1 else {
                    throw RPCError("We encountered a problem while processing the option '--\(member.key)'.")
                }
                if member.key == "split" { split = number } else { perServer = number }
            default: continue
            }
        }
        // aria2 opens at most `split` connections, and at most `max-connection-per-server` to each server.
        let connections = min(split, perServer * uris.count, RequestOptions.maxConnections)
        download.connections = connections > 1 ? connections : nil
        var added: Control.AddedDownload?
        try run { () throws(ControlError) in added = try control.addDownload(download) }
        return GID.of(list: added!.listID, resource: added!.resourceID)
    }

    /// aria2's `changePosition(gid, pos, how)`: farm's order is each list's, so the download moves in its list
    /// (`farm item move`); the answer is its new position there.
    private func changePosition(_ params: Parameters) throws(RPCError) -> JSONValue {
        let download = try find(params.gid(0))
        let position = try params.required(1, as: "integer", \.intValue)
        let how = try params.required(2, as: "string", \.stringValue)
        guard download.isWaiting else { throw RPCError("GID#\(download.gid) not found in the waiting queue.") }
        let last = max(0, (control.spool.list(download.listID)?.total ?? 1) - 1)
        let wanted: Int
        switch how {
        case "POS_SET": wanted = position
        case "POS_CUR": wanted = download.resource.index + position
        case "POS_END": wanted = last + position
        default: throw RPCError("Illegal argument.")
        }
        let target = min(max(0, wanted), last)
        if target != download.resource.index {
            try run { () throws(ControlError) in
                _ = try control.moveItem(.id(download.listID), id: download.resource.id, to: target)
            }
        }
        return .number(JSONNumber(target))
    }

    /// aria2's `changeGlobalOption`: `max-concurrent-downloads` is `farm scale`, `max-overall-download-limit`
    /// `farm limit`; other options are left, as aria2 leaves those it cannot change.
    private func changeGlobalOption(_ params: Parameters) throws(RPCError) {
        let options = try params.required(0, as: "struct", \.objectValue)
        for member in options {
            let value: String
            switch member.value {
            case .string(let text): value = text
            case .number(let number): value = number.literal
            default: continue
            }
            switch member.key {
            case "max-concurrent-downloads":
                guard let workers = Int(value) else {
                    throw RPCError("We encountered a problem while processing the option '--max-concurrent-downloads'.")
                }
                try run { () throws(ControlError) in _ = try control.scale(to: workers) }
            case "max-overall-download-limit":
                try run { () throws(ControlError) in
                    _ = try control.setBandwidthLimit(try Control.bandwidth(value))
                }
            default: continue
            }
        }
    }

    /// aria2's pagination of `tellWaiting` and `tellStopped` (`AbstractPaginationRpcMethod`): `offset` from
    /// the start, or from the end when negative (then the answer runs backwards), at most `num` of them.
    private func page(_ params: Parameters, _ kind: Aria2Lists.Kind) throws(RPCError) -> JSONValue {
        let offset = try params.required(0, as: "integer", \.intValue)
        let num = try params.required(1, as: "integer", \.intValue)
        guard num >= 0 else { throw RPCError("The integer parameter at 1 has invalid value: the value must be >= 0") }
        let keys = try params.keys(2)
        let lists = self.lists()
        let range = Self.range(offset: offset, num: num, size: lists.count(kind))
        var page = lists.downloads(kind, range).map { $0.status(keys: keys) }
        if offset < 0 { page.reverse() }
        return .array(page)
    }

    /// aria2's `getPaginationRange`, in indices.
    public static func range(offset: Int, num: Int, size: Int) -> Range<Int> {
        guard num > 0 else { return size..<size }
        var offset = offset, num = num
        if offset < 0 {
            let from = offset.addingReportingOverflow(size)
            guard !from.overflow, from.partialValue >= 0 else { return size..<size }
            offset = from.partialValue - (num - 1)
            if offset < 0 {
                offset = 0
                num = from.partialValue + 1
            }
        } else if size <= offset {
            return size..<size
        }
        let end = num > size - offset ? size : offset + num
        return offset..<end
    }

    // MARK: - Downloads

    /// Every download a client sees: the spool's resources but the results it purged. Reads every list whole:
    /// for the calls that look for one GID (the `tell*` lists and `getGlobalStat` page through `lists()`).
    private func visible() -> [Aria2Download] {
        let forgotten = forgotten.withLock { $0 }
        let inSpool = Aria2Downloads.read(control.spool)
        let gids = Set(inSpool.map(\.gid))
        let removed = removed.withLock { removed in Array(removed.values).filter { !gids.contains($0.gid) } }
        return inSpool.filter { !($0.isStopped && forgotten[$0.listID]?.contains($0.job) == true) }
            + removed.sorted { $0.gid < $1.gid }
    }

    /// The lists of downloads as of now, for `tell*` and `getGlobalStat`.
    private func lists() -> Aria2Lists {
        Aria2Lists(spool: control.spool, windows: windows, forgotten: forgotten.withLock { $0 },
                   removed: removed.withLock { Array($0.values) }.sorted { $0.gid < $1.gid })
    }

    /// The download `gid` names (a GID or a unique prefix of one), or aria2's refusal.
    private func find(_ gid: String) throws(RPCError) -> Aria2Download {
        guard GID.isWellFormed(gid) else { throw RPCError("Invalid GID \(gid)") }
        let prefix = gid.lowercased()
        let found = visible().filter { $0.gid.hasPrefix(prefix) }
        guard let first = found.first else { throw RPCError("GID \(gid) is not found") }
        guard found.count == 1 else { throw RPCError("GID \(gid) is not unique") }
        return first
    }

    /// A verb of Control; its refusal is the method's error, in Control's sentence.
    private func run(_ verb: () throws(ControlError) -> Void) throws(RPCError) {
        do { try verb() } catch { throw RPCError(error.description) }
    }

    static func encode(_ value: JSONValue) -> [UInt8] {
        Array(JSON.encode(value).dropLast())
    }
}

/// A method's positional parameters (the token taken off), read with aria2's refusals
/// (`checkParam` in src/RpcMethodImpl.h). A value.
struct Parameters {
    let values: [JSONValue]

    init(_ values: [JSONValue]) { self.values = values }

    func required<Value>(_ index: Int, as kind: String, _ read: (JSONValue) -> Value?) throws(RPCError) -> Value {
        guard index < values.count else { throw RPCError("The parameter at \(index) is required but missing.") }
        guard let value = read(values[index]) else { throw RPCError("The parameter at \(index) has wrong type.") }
        return value
    }

    func optional<Value>(_ index: Int, _ read: (JSONValue) -> Value?) throws(RPCError) -> Value? {
        guard index < values.count else { return nil }
        guard let value = read(values[index]) else { throw RPCError("The parameter at \(index) has wrong type.") }
        return value
    }

    func gid(_ index: Int) throws(RPCError) -> String {
        try required(index, as: "string", \.stringValue)
    }

    /// The keys a `tell*` asks for: all when none.
    func keys(_ index: Int) throws(RPCError) -> [String] {
        let keys = try optional(index, \.arrayValue) ?? []
        return keys.compactMap(\.stringValue)
    }
}

/// A parameter read as one kind of JSON, nil when it is another.
extension JSONValue {
    var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    var objectValue: [JSONMember]? { if case .object(let value) = self { value } else { nil } }
    var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    var intValue: Int? { if case .number(let value) = self { value.int } else { nil } }
}
