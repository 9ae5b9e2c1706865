import FarmTestSupport
import Foundation
import Glibc

/// A `farm serve --port 0` started by a test on a spool, ended by pid (SIGTERM, then SIGKILL) when
/// released. Knows its address and the token of its page.
final class ServeProcess {
    let child: ChildProcess
    /// `http://127.0.0.1:PORT` (or https), without the trailing slash: a server bound to every address is
    /// talked to on the loopback one.
    let base: String
    /// `127.0.0.1:PORT`, what a browser sends as Host.
    var authority: String { String(base.split(separator: "/").last ?? "") }

    /// `farm`: the built farm, or the path of another (the Debian package's).
    init(spool: String, arguments: [String] = [], farm: String = "farm") throws {
        child = try ChildProcess(farm, ["serve", "--port", "0", "--spool", spool] + arguments)
        guard let line = child.waitForLine(startingWith: "farm serve: ", timeout: 60),
              let url = line.split(separator: " ").first(where: { $0.hasPrefix("http://") || $0.hasPrefix("https://") })
        else {
            throw CommandFailed("farm serve printed no address: \(child.standardOutput) \(child.standardError)")
        }
        base = String(url.dropLast(url.hasSuffix("/") ? 1 : 0)).replacingOccurrences(of: "//0.0.0.0:", with: "//127.0.0.1:")
    }

    deinit { stop() }

    /// SIGTERM and the exit status (nil if it had to be killed).
    @discardableResult
    func stop() -> Int32? {
        guard child.process.isRunning else { return child.process.terminationStatus }
        child.kill(SIGTERM)
        if let status = child.wait(timeout: 15) { return status }
        child.kill(SIGKILL)
        child.wait(timeout: 15)
        return nil
    }

    /// The token in the page's `farm-token` meta tag.
    lazy var token: String = {
        let page = (try? get("/").text) ?? ""
        guard let range = page.range(of: #"name="farm-token" content="[0-9a-f]+""#, options: .regularExpression) else {
            return ""
        }
        return String(page[range].split(separator: "\"")[3])
    }()

    func get(_ path: String, headers: [String: String] = [:]) throws -> HTTPReply {
        try HTTP.send(base + path, headers: headers)
    }

    /// A POST as the page sends it (its token, JSON), unless told otherwise.
    func post(_ path: String, _ body: String = "{}", token: String? = nil, headers: [String: String] = [:],
              maxTime: Int = 60) throws -> HTTPReply {
        var all = ["Content-Type": "application/json", "X-Farm-Token": token ?? self.token]
        all.merge(headers) { $1 }
        return try HTTP.send(base + path, method: "POST", headers: all, body: body, maxTime: maxTime)
    }

    /// A DELETE as the page sends it (its token), unless told otherwise.
    func delete(_ path: String, token: String? = nil, headers: [String: String] = [:]) throws -> HTTPReply {
        var all = ["X-Farm-Token": token ?? self.token]
        all.merge(headers) { $1 }
        return try HTTP.send(base + path, method: "DELETE", headers: all)
    }
}
