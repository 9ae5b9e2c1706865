import FarmSpool
import FarmStatus
import Hummingbird
import NIOCore

/// `GET /api/events[?list=<id>[&offset=O&limit=L&q=TEXT]]`: server-sent events, fed by the hub
/// (inotify), never polled by the browser. `event: summary` carries the whole-spool document each time
/// it changes; with `list`, `event: list` carries a window of that list's view (SPEC §4 and §9: the
/// resources from `offset`, at most `limit` of them, among those matching `q` when it is given; the
/// first 500 by default) each time it changes, and `null` once the list is gone (a reset). A page
/// follows the part of a list on its screen, never the whole list. Stateless; one body per connection.
enum EventStream {
    /// Windows of one list are rebuilt at most this often, however fast sidecars change.
    static let interval: Duration = .milliseconds(100)

    static func response(hub: StatusHub, spool: Spool, windows: ListWindows, list: String?,
                         window: WindowQuery) -> Response {
        let body = ResponseBody { writer in
            // The browser reconnects after a second if the connection drops (a restarted server).
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            var lastSummary: [UInt8] = [], lastList: [UInt8] = []
            for await _ in hub.subscribe() {
                let summary = hub.latest
                if summary != lastSummary {
                    try await writer.write(event("summary", summary))
                    lastSummary = summary
                }
                if let list {
                    let summary = hub.summary
                    let view = try await Blocking.run {
                        window.view(windows, spool, id: list, summary: summary).map { StatusHub.encode($0) }
                    }
                    let data = view ?? Array("null".utf8)
                    if data != lastList {
                        try await writer.write(event("list", data))
                        lastList = data
                    }
                }
                try await Task.sleep(for: interval)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [
            .contentType: "text/event-stream; charset=utf-8",
            .cacheControl: "no-store",
        ], body: body)
    }

    private static func event(_ name: String, _ data: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer(string: "event: \(name)\ndata: ")
        buffer.writeBytes(data)
        buffer.writeString("\n\n")
        return buffer
    }
}
