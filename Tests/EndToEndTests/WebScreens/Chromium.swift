import FarmJSON
import FarmTestSupport
import Foundation
import Glibc

/// Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: commands
/// on its fd 3, answers on its fd 4, each a JSON message ended by a NUL byte). A page holding an open
/// EventSource never goes idle, so the flags that wait for idleness (`--dump-dom`, `--screenshot`)
/// cannot be trusted here; the protocol lets the test wait for exactly what it expects instead.
///
/// Started in a process group of its own; `close()` (or `deinit`) kills that group and every
/// descendant by pid, and reaps the browser. One test thread uses it.
final class Chromium {
    static var executable: String? {
        ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].first { access($0, X_OK) == 0 }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let pid: pid_t
    private let commands: Int32
    private let answers: Int32
    private let profile = TemporaryDirectory("farm-chromium")
    private var nextID = 0
    private var pending: [UInt8] = []
    private var session = ""
    private var closed = false

    /// A browser with one 1280×800 tab.
    init() throws {
        guard let executable = Self.executable else { throw Failure(description: "chromium is not installed (bin/setup installs it)") }
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw Failure(description: "pipe: \(errno)") }
        // Only the ends dup2'ed to 3 and 4 reach the browser; ours stay here.
        for fd in [toBrowser[1], fromBrowser[0]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // Out of the way of 3 and 4 before they are dup2'ed there in the child.
        let read3 = fcntl(toBrowser[0], F_DUPFD_CLOEXEC, 100), write4 = fcntl(fromBrowser[1], F_DUPFD_CLOEXEC, 100)
        Glibc.close(toBrowser[0])
        Glibc.close(fromBrowser[1])
        commands = toBrowser[1]
        answers = fromBrowser[0]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, read3, 3)
        posix_spawn_file_actions_adddup2(&actions, write4, 4)
        posix_spawn_file_actions_addopen(&actions, 1, profile.appending("chromium.log"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let arguments = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                         "--user-data-dir=" + profile.appending("profile"), "--no-first-run", "--no-default-browser-check",
                         "--disable-extensions", "--disable-background-networking", "--disable-component-update",
                         "--disable-sync", "--hide-scrollbars", "--mute-audio", "--window-size=1280,800", "about:blank"]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        Glibc.close(read3)
        Glibc.close(write4)
        guard spawned == 0 else { throw Failure(description: "cannot start \(executable): \(spawned)") }
        pid = child

        let target = try call("Target.createTarget", ["url": "about:blank"], toBrowser: true)["targetId"]
        let attached = try call("Target.attachToTarget", ["targetId": Self.string(target) ?? "", "flatten": true],
                                toBrowser: true)
        session = Self.string(attached["sessionId"]) ?? ""
        try call("Emulation.setDeviceMetricsOverride", ["width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false])
    }

    deinit { close() }

    /// Sends `headers` with every request of the tab from now on (an `Authorization` a user would type
    /// into the browser's password prompt, which a headless browser cannot show).
    func setExtraHTTPHeaders(_ headers: [String: String]) throws {
        try call("Network.enable")
        let members = headers.map { ($0.key, $0.value as any JSONWritable) }
        try call("Network.setExtraHTTPHeaders", ["headers": Parameters(members: members)])
    }

    func navigate(_ url: String) throws {
        try call("Page.navigate", ["url": url])
    }

    /// Makes the tab's window `width`×`height` CSS pixels (a phone's 390 wide, a desktop's 1280).
    func resize(width: Int, height: Int) throws {
        try call("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": false])
    }

    /// The value of a JavaScript expression in the page (JSON-able values only); nil for `undefined`.
    @discardableResult
    func evaluate(_ expression: String) throws -> JSONValue? {
        let result = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] { throw Failure(description: "\(expression): \(exception)") }
        return result["result"]?["value"]
    }

    /// The value of a JavaScript expression in the page read as `type`; nil when it is not one.
    func evaluate<Value: JSONReadable>(_ expression: String, as type: Value.Type) throws -> Value? {
        try evaluate(expression).flatMap { try? Value(json: $0) }
    }

    /// The centre of the first element matching `selector`, in CSS pixels of the viewport, scrolled into
    /// view first, once it stays still (cells slide to their places); nil when none matches.
    func centre(of selector: String) throws -> (x: Double, y: Double)? {
        var last = try place(of: selector)
        for _ in 0..<40 {
            usleep(60_000)
            let now = try place(of: selector)
            if let a = now, let b = last, a == b { return (a.x, a.y) }
            last = now
        }
        return last.map { ($0.x, $0.y) }
    }

    private func place(of selector: String) throws -> (x: Double, y: Double)? {
        let found = try evaluate("""
            (() => { const e = document.querySelector(\(Self.quoted(selector))); if (!e) return null;
              e.scrollIntoView({block: "nearest"}); const r = e.getBoundingClientRect();
              return [r.left + r.width / 2, r.top + r.height / 2]; })()
            """, as: [Double].self)
        return found.map { ($0[0], $0[1]) }
    }

    /// A real left click (the mouse pressed and released, as a user's) at the centre of `selector`.
    func click(_ selector: String) throws {
        guard let point = try centre(of: selector) else { throw Failure(description: "nothing matches \(selector)") }
        try mouse("mousePressed", point, clickCount: 1)
        try mouse("mouseReleased", point, clickCount: 1)
    }

    /// A real drag with the left button from the centre of `from` to the centre of `to`, in steps.
    func drag(_ from: String, onto to: String) throws {
        guard let start = try centre(of: from), let end = try centre(of: to) else {
            throw Failure(description: "nothing matches \(from) or \(to)")
        }
        try mouse("mousePressed", start, clickCount: 1)
        for step in 1...12 {
            let t = Double(step) / 12
            try mouse("mouseMoved", (start.x + (end.x - start.x) * t, start.y + (end.y - start.y) * t), buttons: 1)
            usleep(16_000)
        }
        try mouse("mouseReleased", end, clickCount: 1)
    }

    /// Types `text` into the focused element, as a keyboard's input.
    func type(_ text: String) throws {
        try call("Input.insertText", ["text": text])
    }

    private func mouse(_ type: String, _ point: (x: Double, y: Double), clickCount: Int = 0, buttons: Int = 0) throws {
        try call("Input.dispatchMouseEvent", ["type": type, "x": point.x, "y": point.y, "button": "left",
                                               "clickCount": clickCount, "buttons": type == "mousePressed" ? 1 : buttons])
    }

    /// `text` as a JavaScript string literal (a JSON string is one).
    private static func quoted(_ text: String) -> String {
        String(decoding: JSON.encode(text).dropLast(), as: UTF8.self)
    }

    /// The string `value` holds, if it is one.
    private static func string(_ value: JSONValue?) -> String? {
        value.flatMap { try? String(json: $0) }
    }

    /// Evaluates `expression` until it is true, every `every` seconds for up to `timeout` seconds.
    @discardableResult
    func waitFor(_ expression: String, timeout: Double = 30, every: Double = 0.1) -> Bool {
        poll(timeout: timeout, every: every) { (try? evaluate(expression, as: Bool.self)) == true }
    }

    /// Runs `source` at the start of every page loaded from now on, before the page's own scripts
    /// (the page's Content-Security-Policy does not apply to it).
    func addScriptOnNewDocument(_ source: String) throws {
        try call("Page.enable")
        try call("Page.addScriptToEvaluateOnNewDocument", ["source": source])
    }

    /// A PNG of the viewport.
    func screenshot() throws -> [UInt8] {
        let data = Self.string(try call("Page.captureScreenshot", ["format": "png"])["data"]) ?? ""
        guard let bytes = Data(base64Encoded: data) else { throw Failure(description: "the screenshot is not base64") }
        return [UInt8](bytes)
    }

    /// The parameters of a command: strings, numbers and booleans by name.
    private struct Parameters: JSONWritable, ExpressibleByDictionaryLiteral {
        let members: [(String, any JSONWritable)]

        init(dictionaryLiteral members: (String, any JSONWritable)...) {
            self.members = members
        }

        init(members: [(String, any JSONWritable)]) {
            self.members = members
        }

        func write(to json: inout JSONWriter) {
            json.beginObject()
            for (key, value) in members.sorted(by: { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }) {
                json.key(key)
                value.write(to: &json)
            }
            json.endObject()
        }
    }

    /// Sends one command (to the tab, or `toBrowser`) and waits (30 s at most) for its answer, skipping
    /// the events in between; returns its result (an object).
    @discardableResult
    private func call(_ method: String, _ parameters: Parameters = [:], toBrowser: Bool = false) throws -> JSONValue {
        nextID += 1
        var message = JSONWriter()
        message.beginObject()
        message.member("id", nextID)
        message.member("method", method)
        message.member("params", parameters)
        if !toBrowser { message.member("sessionId", session) }
        message.endObject()
        // The writer's final newline becomes the NUL that ends a message on the pipe.
        var bytes = Array(message.finish().dropLast()) + [0]
        while !bytes.isEmpty {
            let written = write(commands, bytes, bytes.count)
            guard written > 0 else { throw Failure(description: "the browser closed its pipe (\(method))") }
            bytes.removeFirst(written)
        }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard let answer = try nextMessage(until: deadline) else { break }
            guard answer["id"] == .number(JSONNumber(nextID)) else { continue }
            if let error = answer["error"] { throw Failure(description: "\(method): \(error)") }
            return answer["result"] ?? .object([])
        }
        throw Failure(description: "no answer to \(method) within 30 s")
    }

    private func nextMessage(until deadline: Date) throws -> JSONValue? {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let end = pending.firstIndex(of: 0) {
                let message = Array(pending[..<end])
                pending.removeFirst(end + 1)
                return (try? JSONParser.parse(message)) ?? .object([])
            }
            var descriptor = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard poll(&descriptor, 1, wait) > 0 else { return nil }
            let count = read(answers, &chunk, chunk.count)
            guard count > 0 else { throw Failure(description: "the browser closed its pipe") }
            pending += chunk[0..<count]
        }
    }

    /// Kills the browser's process group and every descendant (by pid), then reaps the browser.
    func close() {
        guard !closed else { return }
        closed = true
        let family = Self.descendants(of: pid)
        kill(-pid, SIGKILL)
        for child in family { kill(child, SIGKILL) }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        Glibc.close(commands)
        Glibc.close(answers)
    }

    /// Every process whose chain of parents leads to `root`, read from /proc.
    static func descendants(of root: pid_t) -> [pid_t] {
        var parents: [pid_t: pid_t] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { parents[pid] = parent }
        }
        var found: [pid_t] = [], frontier = [root]
        while let next = frontier.popLast() {
            let children = parents.filter { $0.value == next }.map(\.key)
            found += children
            frontier += children
        }
        return found
    }
}
