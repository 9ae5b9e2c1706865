import Glibc
import NIOCore

/// The few things done to a connection below Hummingbird's API, in SwiftNIO: a TCP reset, waiting for
/// written bytes to reach the socket, telling whether the client left, and timers on the connection's own
/// event loop. Used by the
/// responder and the body writer, from the task that serves the request.
enum Connection {
    /// Aborts `channel` with a TCP RST instead of a FIN: SO_LINGER on with a zero timeout, then close.
    static func reset(_ channel: any Channel) async {
        guard let socket = channel as? any SocketOptionProvider else {
            try? await channel.close()
            return
        }
        try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        try? await channel.close()
    }

    /// Returns once what was written before the call has been handed to the socket (or failed): the body
    /// writer's writes are queued on the channel's event loop, so a task submitted after them runs after them.
    /// A short pause follows so the peer's kernel has the bytes before a close or a reset.
    static func drain(_ channel: any Channel) async {
        try? await channel.eventLoop.submit {}.get()
        try? await sleep(until: .now() + .milliseconds(20), on: channel.eventLoop)
    }

    /// Whether the client has left: the channel is closed, or the socket is no longer ESTABLISHED (the
    /// server accepts half-closed connections, so a client's FIN alone does not make the channel inactive).
    static func peerIsGone(_ channel: any Channel) async -> Bool {
        guard channel.isActive else { return true }
        guard let socket = channel as? any SocketOptionProvider,
              let info = try? await socket.getTCPInfo().get() else { return false }
        return Int32(info.tcpi_state) != Int32(TCP_ESTABLISHED)
    }

    /// Sleeps on `loop`'s timer, not the global executor's, so the origin keeps its own pace even while the
    /// cooperative pool is blocked by synchronous tests. Throws CancellationError when the task is cancelled.
    static func sleep(until deadline: NIODeadline, on loop: any EventLoop) async throws {
        guard deadline > .now() else { return }
        let scheduled = loop.scheduleTask(deadline: deadline) {}
        try await withTaskCancellationHandler {
            do {
                try await scheduled.futureResult.get()
            } catch EventLoopError.cancelled {
                throw CancellationError()
            }
        } onCancel: {
            scheduled.cancel()
        }
    }
}
