import Hummingbird
import NIOCore

/// Why a body ended early on purpose. Thrown out of the body writer so that Hummingbird drops the
/// connection; never seen by a client as anything but a closed, reset or silent connection.
enum OriginAbort: Error {
    case cutShort, reset, stalled
}

/// Sends one response body (the bytes of a 200 or 206) at the pace and with the ending its faults ask
/// for, counting in the request log what it hands to the connection. Made by the responder for one
/// request and run by Hummingbird in that request's task.
struct BodyWriter: Sendable {
    let body: ByteBuffer
    let ending: BodyEnding
    let bytesPerSecond: Int?
    let channel: any Channel
    let log: RequestLog
    let sequence: Int

    /// Chunks small enough for a throttled body to flow about twenty times a second.
    private var chunkSize: Int {
        guard let bytesPerSecond else { return 64 << 10 }
        return min(max(bytesPerSecond / 20, 1), 64 << 10)
    }

    func write(to writer: inout any ResponseBodyWriter) async throws {
        defer { log.end(sequence) }
        let count = ending.bytesToSend(of: body.readableBytes)
        let chunk = chunkSize
        let start = NIODeadline.now()
        var sent = 0
        while sent < count {
            let length = min(chunk, count - sent)
            if let bytesPerSecond {
                // A chunk leaves no earlier than its last byte is due: N bytes take at least N / rate seconds.
                let due = Double(sent + length) / Double(bytesPerSecond) * 1e9
                try await Connection.sleep(until: start + .nanoseconds(Int64(due.rounded(.up))), on: channel.eventLoop)
            }
            // With its last bytes the client may have the whole response, end its transfer and start
            // another: this one is through before they go, so the two are never counted at once.
            if sent + length == count && ending == .complete { log.through(sequence) }
            try await writer.write(body.getSlice(at: body.readerIndex + sent, length: length)!)
            sent += length
            log.update(sequence) { $0.bodyBytes += length }
        }
        switch ending {
        case .complete:
            try await writer.finish(nil)
            log.update(sequence) { $0.complete = true }
        case .cutShort:
            // Hummingbird closes the connection (a FIN) when a body fails: the client sees it end early.
            await Connection.flush(channel)
            throw OriginAbort.cutShort
        case .reset:
            await Connection.flush(channel)
            await Connection.waitForAcknowledgement(channel)
            await Connection.reset(channel)
            throw OriginAbort.reset
        case .stall:
            // Silent but open until the client gives up, or the origin stops and cancels this task.
            while await !Connection.peerIsGone(channel) {
                try await Connection.sleep(until: .now() + .milliseconds(100), on: channel.eventLoop)
            }
            throw OriginAbort.stalled
        }
    }
}
