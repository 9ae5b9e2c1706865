import Glibc
import NIOCore
import NIOHTTPTypes

/// The few things done to a connection below Hummingbird's API, in SwiftNIO: a TCP reset, waiting for
/// written bytes to reach the socket and the client, telling whether the client left, and timers on the
/// connection's own event loop. Used by the responder and the body writer, from the task serving a request.
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

    /// Returns once the body bytes written so far have left NIO for the kernel. An empty body part is
    /// written behind them on the event loop (after the body writer's own hops), and NIO completes writes in
    /// order. A client that reads nothing would hold this forever: past 5 s its connection is closed.
    static func flush(_ channel: any Channel) async {
        let loop = channel.eventLoop
        let giveUp = loop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
        try? await loop.flatSubmit { channel.writeAndFlush(HTTPResponsePart.body(ByteBuffer())) }.get()
        giveUp.cancel()
    }

    /// Waits (up to a second) for the client to acknowledge every byte sent, so that a reset, which throws
    /// away what is still in flight, leaves the client with all the bytes it was meant to get.
    static func waitForAcknowledgement(_ channel: any Channel) async {
        guard let socket = channel as? any SocketOptionProvider else { return }
        let deadline = NIODeadline.now() + .seconds(1)
        while NIODeadline.now() < deadline, let info = try? await socket.getTCPInfo().get(), info.tcpi_unacked > 0 {
            try? await sleep(until: .now() + .milliseconds(5), on: channel.eventLoop)
        }
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
