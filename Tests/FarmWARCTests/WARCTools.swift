import FarmTestSupport
import Foundation
import Testing
@testable import FarmWARC

/// What the WARC tests share: tools nobody here wrote (warcio, Python's hashlib), run as child processes,
/// and small fixtures.
enum WARCTools {
    /// `sha1:` + base32 of `bytes`, as Python's hashlib and base64 compute it.
    static func pythonDigest(_ bytes: [UInt8]) throws -> String {
        let script = "import sys,hashlib,base64; print('sha1:'+base64.b32encode(hashlib.sha1(sys.stdin.buffer.read()).digest()).decode())"
        let result = try run("/usr/bin/env", ["python3", "-c", script], input: bytes)
        try #require(result.status == 0, "python3: \(result.error)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `warcio check -v` of the files: its status and what it printed.
    static func check(_ paths: [String]) throws -> (status: Int32, output: String) {
        let result = try run("/usr/bin/env", ["warcio", "check", "-v"] + paths, timeout: 300)
        return (result.status, result.output + result.error)
    }

    /// One line of `warcio index`.
    struct Entry: Equatable {
        let type: String
        let id: String
        let uri: String?
        let concurrentTo: String?
        let filename: String?
    }

    /// `warcio index` of one file: its records, in order.
    static func index(_ path: String) throws -> [Entry] {
        let fields = "warc-type,warc-record-id,warc-target-uri,warc-concurrent-to,warc-filename"
        let result = try run("/usr/bin/env", ["warcio", "index", "-f", fields, path], timeout: 300)
        try #require(result.status == 0, "warcio index \(path): \(result.error)")
        return try result.output.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            return Entry(type: object["warc-type"] ?? "", id: object["warc-record-id"] ?? "",
                         uri: object["warc-target-uri"], concurrentTo: object["warc-concurrent-to"],
                         filename: object["warc-filename"])
        }
    }

    /// The finished WARC files of `directory`, by name.
    static func finishedFiles(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".warc.gz") }.sorted()
    }

    static func openFiles(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".open") }.sorted()
    }

    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: count)
        for start in stride(from: 0, to: count, by: 8) {
            let value = generator.next() as UInt64
            for k in 0..<min(8, count - start) { bytes[start + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
        }
        return bytes
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// A GET exchange for `path` whose response body is `body`.
    static func exchange(_ path: String, body: WARCBody, head: String? = nil, date: WARCDate = .now()) -> WARCExchange {
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: farm\r\n\r\n"
        let responseHead = head ?? "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"
        return WARCExchange(targetURI: "http://127.0.0.1:8080\(path)", date: date, ipAddress: "127.0.0.1",
                            request: WARCBlock(head: Array(request.utf8)),
                            response: WARCBlock(head: Array(responseHead.utf8), body: body))
    }
}
