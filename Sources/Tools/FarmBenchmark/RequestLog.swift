import Foundation
import Glibc

/// What nginx's access log in its predefined `combined` format says of one run: each path asked, how many
/// times, and with what status and body bytes (its last answer). The mirror section reads it to tell which
/// URLs each tool fetched, whatever it did with them.
struct RequestLog {
    struct Answer: Equatable {
        var count: Int
        var status: Int
        var bytes: Int
    }

    /// By path as asked (its query kept).
    var answers: [String: Answer] = [:]

    var paths: Set<String> { Set(answers.keys) }

    /// The log's lines, each `… "GET /p HTTP/1.1" 200 1234 "…" "…"`; lines of another shape are skipped.
    init(text: String) {
        for line in text.split(separator: "\n") {
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
            guard quoted.count > 2 else { continue }
            let request = quoted[1].split(separator: " ")
            let after = quoted[2].split(separator: " ")
            guard request.count > 1, after.count > 1, let status = Int(after[0]), let bytes = Int(after[1]) else { continue }
            let path = String(request[1])
            answers[path] = Answer(count: (answers[path]?.count ?? 0) + 1, status: status, bytes: bytes)
        }
    }

    /// The log at `path` once nginx has written the last request (it logs a request after sending it: a
    /// client may see its last byte a moment before): read until two reads 50 ms apart agree.
    static func settled(_ path: String) -> RequestLog {
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        while true {
            usleep(50_000)
            let again = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if again == text { return RequestLog(text: text) }
            text = again
        }
    }
}
