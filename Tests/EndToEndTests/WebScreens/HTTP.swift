import FarmJSON
import FarmTestSupport
import Foundation

/// One answer of `farm serve`, as curl read it.
struct HTTPReply {
    var status: Int
    /// Header names lowercased.
    var headers: [String: String]
    var body: [UInt8]
    /// curl's own complaint (a refused or reset connection), for the failure messages.
    var curlError = ""

    var text: String { String(decoding: body, as: UTF8.self) }
    /// The body as FarmJSON parses it; nil when it is not JSON.
    var json: JSONValue? { try? JSONParser.parse(body) }
    /// The `error` of a refusal.
    var error: String? { string("error") }
    /// The `message` of an action's answer.
    var message: String? { string("message") }

    /// The body read as `type` (a status document, a list's view…); nil when it is not one.
    func decode<Value: JSONReadable>(_ type: Value.Type) -> Value? {
        JSON.decode(type, from: body)
    }

    private func string(_ key: String) -> String? {
        json?[key].flatMap { try? String(json: $0) }
    }
}

/// Requests through the system's curl (a real client; 127.0.0.1 only), sent as given: `--path-as-is`
/// keeps `..` and `%2e` for the server to judge. `caFile`: trust it for https. Any thread.
enum HTTP {
    static func send(_ url: String, method: String = "GET", headers: [String: String] = [:], body: String? = nil,
                     maxTime: Int = 30, caFile: String? = nil) throws -> HTTPReply {
        precondition(url.hasPrefix("http://127.0.0.1:") || url.hasPrefix("https://127.0.0.1:"),
                     "tests only ever talk to the loopback server")
        let directory = TemporaryDirectory("farm-serve-curl")
        let bodyFile = directory.appending("body"), headerFile = directory.appending("headers")
        var arguments = ["--silent", "--show-error", "--path-as-is", "--max-time", String(maxTime), "--request", method,
                         "--dump-header", headerFile, "--output", bodyFile, "--write-out", "%{http_code}"]
        for (name, value) in headers { arguments += ["--header", "\(name): \(value)"] }
        if let body { arguments += ["--data-binary", body] }
        if let caFile { arguments += ["--cacert", caFile] }
        let (_, output, complaint) = try run("/usr/bin/curl", arguments + [url], timeout: Double(maxTime) + 30)
        var fields: [String: String] = [:]
        for line in ((try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? "").components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":"), !line.hasPrefix("HTTP/") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return HTTPReply(status: Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, headers: fields,
                         body: FileManager.default.contents(atPath: bodyFile).map { [UInt8]($0) } ?? [], curlError: complaint)
    }
}
