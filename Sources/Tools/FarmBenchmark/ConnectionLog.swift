import Foundation

/// What nginx's per-request log says of one run: the connections a client opened (over TLS, each a
/// handshake), and when the requests came, to split the run's time into the client's start-up, its
/// requests and its exit, and to see how long a connection idled between one response and the next
/// request (the client's own work per file).
struct ConnectionLog {
    /// The log_format: connection serial, TLS session resumed ("r") or not ("."), the time the
    /// response ended (Unix seconds, ms resolution), the request's time on the server in seconds, the
    /// protocol (HTTP/1.1, HTTP/2.0).
    static let format = "'$connection $ssl_session_reused $msec $request_time $server_protocol'"

    var connections = 0
    var resumed = 0
    var requests = 0
    /// When the first request began and the last response ended (Unix seconds).
    var firstStart = 0.0
    /// When the second request began: a crawler's start page, after its robots.txt.
    var secondStart = 0.0
    var lastEnd = 0.0
    /// Per connection, the seconds from one response's end to the next request's start.
    var gaps: [Double] = []
    /// Requests the server held at once, on average from the first request to the last response.
    var inFlight = 0.0
    /// How long after the run's first request each connection's first came, on average and at the
    /// latest: how long the client took to reach its full parallelism.
    var rampMean = 0.0
    var rampLast = 0.0
    /// The protocols the requests came in, each once.
    var protocols: Set<String> = []

    init(text: String) {
        var byConnection: [Substring: [(start: Double, end: Double)]] = [:]
        var resumedSet: Set<Substring> = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 4, let end = Double(fields[2]), let took = Double(fields[3]) else { continue }
            byConnection[fields[0], default: []].append((end - took, end))
            if fields[1] == "r" { resumedSet.insert(fields[0]) }
            if fields.count > 4 { protocols.insert(String(fields[4])) }
        }
        connections = byConnection.count
        resumed = resumedSet.count
        let all = byConnection.values.joined()
        requests = all.count
        let starts = all.map(\.start).sorted()
        firstStart = starts.first ?? 0
        secondStart = starts.dropFirst().first ?? firstStart
        lastEnd = all.map(\.end).max() ?? 0
        if lastEnd > firstStart { inFlight = all.map { $0.end - $0.start }.reduce(0, +) / (lastEnd - firstStart) }
        let firsts = byConnection.values.map { spans in spans.map(\.start).min()! - firstStart }
        rampMean = firsts.isEmpty ? 0 : firsts.reduce(0, +) / Double(firsts.count)
        rampLast = firsts.max() ?? 0
        for var spans in byConnection.values {
            // HTTP/2 runs several requests of a connection at once: a gap only where none was running.
            spans.sort { $0.start < $1.start }
            var busyUntil = spans.first?.end ?? 0
            for span in spans.dropFirst() {
                if span.start > busyUntil { gaps.append(span.start - busyUntil) }
                busyUntil = max(busyUntil, span.end)
            }
        }
    }
}
