import FarmJSON
import FarmRPC
import FarmSpool
import FarmSystem
import HTTPTypes
import HummingbirdWebSocket
import Logging
import NIOCore

/// aria2's JSON-RPC over WebSocket at /jsonrpc (SPEC §16): each text frame is a body as a POST's, answered
/// on the same socket, and every socket hears aria2's notifications (`Aria2Notifier`), looked for each time
/// the hub wakes (the spool's change feed), at most every quarter of a second.
///
/// An upgrade passes the same guards as a request (the Host, off loopback the password, and without
/// `--rpc-secret` no page of another origin); one that does not is not upgraded, and the responder then
/// answers the request with its refusal. Shared by every connection; its clients behind a lock.
final class RPCSockets: Sendable {
    private struct State {
        var next = 0
        var clients: [Int: AsyncStream<String>.Continuation] = [:]
        var following = false
    }

    private let rpc: Aria2RPC
    private let hub: StatusHub
    private let spool: Spool
    private let access: ServeAccess
    private let notifier = Aria2Notifier()
    private let state = Locked(State())

    init(rpc: Aria2RPC, hub: StatusHub, spool: Spool, access: ServeAccess) {
        self.rpc = rpc
        self.hub = hub
        self.spool = spool
        self.access = access
    }

    /// Whether to take `head` as a WebSocket of aria2's RPC, and what runs it.
    func shouldUpgrade(_ head: HTTPRequest, channel: any Channel, guarding: RequestGuard)
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let path = head.path.map { String($0.prefix { $0 != "?" && $0 != "#" }) }
        guard path == RPCEndpoint.path else { return .dontUpgrade }
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        do {
            try access.check(head.headerFields, from: address)
            try guarding.checkHost(authority: head.authority)
        } catch {
            return .dontUpgrade
        }
        if !rpc.hasSecret, let origin = head.headerFields[.origin], !guarding.isOwnOrigin(origin, authority: head.authority) {
            return .dontUpgrade
        }
        return .upgrade([:]) { [self] inbound, outbound, _ in
            let (notifications, id) = join()
            defer { leave(id) }
            let rpc = rpc
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await text in notifications { try await outbound.write(.text(text)) }
                }
                for try await message in inbound.messages(maxSize: RPCMessage.maxBytes) {
                    guard case .text(let text) = message else { continue }
                    let bytes = Array(text.utf8)
                    let answer = try await Blocking.run { rpc.answer(bytes) }
                    if answer.unauthorized { try await Task.sleep(for: .seconds(1)) }
                    try await outbound.write(.text(String(decoding: answer.body, as: UTF8.self)))
                }
                group.cancelAll()
            }
        }
    }

    /// A new client's notifications; the first one starts following the spool.
    private func join() -> (AsyncStream<String>, Int) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1024))
        let (id, follow) = state.withLock { state in
            state.next += 1
            state.clients[state.next] = continuation
            defer { state.following = true }
            return (state.next, !state.following)
        }
        if follow { Task { await self.follow() } }
        return (stream, id)
    }

    private func leave(_ id: Int) {
        state.withLock { $0.clients.removeValue(forKey: id) }?.finish()
    }

    /// Until the hub stops: a look at the downloads at each of its wake-ups, its notifications to every client.
    private func follow() async {
        let spool = spool, notifier = notifier
        for await _ in hub.subscribe() {
            guard let said = try? await Blocking.run({ notifier.look(Aria2Downloads.read(spool)) }) else { continue }
            let clients = state.withLock { Array($0.clients.values) }
            for note in said {
                let text = String(decoding: JSON.encode(note).dropLast(), as: UTF8.self)
                for client in clients { client.yield(text) }
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        let clients = state.withLock { state in
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
        for client in clients { client.finish() }
    }
}
