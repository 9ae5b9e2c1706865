import FarmOrigin
import FarmTestSupport
import Foundation

/// What one run of the system's curl against an origin gave. Built by `Curl.fetch` for the origin tests.
struct CurlResult {
    /// curl's exit code: 0, or 18 (body cut short), 28 (time-out), 56 (receive failure, a reset), ...
    var exit: Int32
    /// The status of the last response curl read; 0 when it read none.
    var status: Int
    /// Headers of the last response, names lowercased.
    var headers: [String: String]
    /// Every status line curl read, redirects included.
    var statusLines: [String]
    var body: [UInt8]
    var error: String
}

/// Runs `/usr/bin/curl` (a real client, on 127.0.0.1 only) in a child process with a deadline, keeping
/// the headers and body in a temporary directory. Used by the origin tests from any thread.
enum Curl {
    static func fetch(_ url: String, _ options: [String] = [], maxTime: Int = 30) throws -> CurlResult {
        precondition(url.hasPrefix("http://127.0.0.1:"), "tests only ever talk to the loopback origin")
        let directory = TemporaryDirectory("farm-origin-curl")
        let bodyFile = directory.appending("body"), headerFile = directory.appending("headers")
        let arguments = ["--silent", "--show-error", "--max-time", String(maxTime), "--dump-header", headerFile,
                         "--output", bodyFile, "--write-out", "%{http_code}"] + options + [url]
        let (exit, output, error) = try run("/usr/bin/curl", arguments, timeout: Double(maxTime) + 30)
        let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        let lines = headerText.components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        var statusLines: [String] = []
        for line in lines {
            if line.hasPrefix("HTTP/") {
                statusLines.append(line)
                headers = [:]
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        let body = FileManager.default.contents(atPath: bodyFile).map { [UInt8]($0) } ?? []
        return CurlResult(exit: exit, status: Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0,
                          headers: headers, statusLines: statusLines, body: body, error: error)
    }
}

/// Deterministic bytes for fixtures: every offset has its own value, so a body from the wrong offset
/// never compares equal.
func fixtureBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
}

/// An origin already listening, for a test to configure and stop.
func startedOrigin() throws -> Origin {
    let origin = Origin()
    try origin.start()
    return origin
}

/// A body as a test compares it: its length and a hash of its bytes, so a failed expectation prints one
/// line instead of every byte.
struct Body: Equatable, CustomStringConvertible {
    let count: Int
    let hash: UInt64

    init(_ bytes: some Collection<UInt8>) {
        count = bytes.count
        hash = bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }

    var description: String { "\(count) B (fnv \(String(hash, radix: 16)))" }
}
