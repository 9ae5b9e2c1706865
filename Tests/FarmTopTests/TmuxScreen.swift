import CFarmShims
import FarmTestSupport
import Foundation
import Glibc
import Testing

/// A real pseudo-terminal for a test: a detached tmux server of its own (own socket name, no
/// config) running one shell command in an 80×24 pane. The test types with `send`, reads the
/// screen with `capture` and asks tmux about the terminal's modes with `display`. `deinit` kills
/// this server, by its socket name, and with it the processes in its pane.
final class TmuxScreen {
    /// tmux from $PATH; the tests need it (Debian: `apt-get install tmux`).
    static let tmux: String = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { $0 + "/tmux" }.first { access($0, X_OK) == 0 } ?? "tmux"
    }()
    let socket = "farm-top-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    /// Starts `command` (run by the shell) with `environment` added, in a `width`×`height` pane.
    init(_ command: String, environment: [String: String] = [:], width: Int = 80, height: Int = 24) throws {
        try #require(Self.tmux.hasPrefix("/"),
                     "the farm top tests drive a real terminal through tmux: install it (apt-get install tmux)")
        var arguments = ["-f", "/dev/null", "new-session", "-d", "-s", "top", "-x", String(width), "-y", String(height)]
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["-e", "\(name)=\(value)"] }
        let status = try spawnClean(Self.tmux, ["-L", socket] + arguments + [command])
        try #require(status == 0, "tmux new-session exited with status \(status)")
    }

    deinit {
        _ = try? run(Self.tmux, ["-L", socket, "kill-server"], timeout: 10)
        // A killed server may leave its socket file behind.
        let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        unlink(directory + "/tmux-\(getuid())/" + socket)
    }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let result = try run(Self.tmux, ["-L", socket] + arguments, timeout: 10)
        try #require(result.status == 0, "tmux \(arguments.joined(separator: " ")): \(result.error)")
        return result.output
    }

    /// The pane as text, one string per row (trailing spaces dropped by tmux).
    func capture() -> [String] {
        guard let text = try? tmux(["capture-pane", "-p", "-t", "top"]) else { return [] }
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    var text: String { capture().joined(separator: "\n") }

    /// Types `keys` (tmux key names such as Enter, Escape, Up, C-c, or plain characters).
    func send(_ keys: String...) throws {
        try tmux(["send-keys", "-t", "top"] + keys)
    }

    /// A tmux format about the pane, e.g. "#{alternate_on}".
    func display(_ format: String) -> String {
        ((try? tmux(["display-message", "-p", "-t", "top", format])) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", "top", "-x", String(width), "-y", String(height)])
    }

    /// The pid of the pane's shell.
    var shellPID: pid_t { pid_t(display("#{pane_pid}")) ?? 0 }

    /// Waits (generously) until the screen satisfies `condition`.
    @discardableResult
    func waitFor(timeout: Double = 30, _ condition: ([String]) -> Bool) -> Bool {
        poll(timeout: timeout, every: 0.1) { condition(capture()) }
    }

    func waitFor(_ text: String, timeout: Double = 30) -> Bool {
        waitFor(timeout: timeout) { $0.contains { $0.contains(text) } }
    }
}

/// The children of `pid` (from /proc), e.g. the `farm top` a pane's shell runs.
func children(of pid: pid_t) -> [pid_t] {
    let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
    return text.split(separator: " ").compactMap { pid_t($0) }
}

/// A shell command that shows a marker, runs `farm top` on `spool`, reports its exit status and
/// keeps the pane alive, so the test sees what the terminal looks like after top is gone. With
/// `runs` > 1, each further run waits for Enter: the test must see one run end before the next one
/// takes the screen. With `crashAfterFrames`, farm-probe runs top's same code and crashes it (a Swift
/// trap) once it has drawn that many frames.
func topCommand(spool: String, runs: Int = 1, crashAfterFrames: Int? = nil) -> String {
    let command = crashAfterFrames.map { "\"\(Executables.path("farm-probe"))\" top --crash-after-frames \($0)" }
        ?? "\"\(Executables.path("farm"))\" top"
    let top = command + " --spool \"\(spool)\"; echo \"top exited: $?\""
    return "echo 'before top'; " + Array(repeating: top, count: runs).joined(separator: "; read line; ")
        + "; exec sleep 600"
}

/// Saves `screen` as `<name>.txt` in $FARM_TOP_CAPTURES when it is set (for the issue's note).
func keepCapture(_ screen: [String], as name: String) {
    guard let directory = ProcessInfo.processInfo.environment["FARM_TOP_CAPTURES"] else { return }
    try? (screen.joined(separator: "\n") + "\n").write(toFile: directory + "/" + name + ".txt", atomically: true,
                                                      encoding: .utf8)
}

/// Runs `path` with `arguments` to its end and returns its exit status, through posix_spawn rather
/// than Foundation's Process: the tmux server forks from its first client and would inherit the
/// test's blocked signal mask (the panes would never see SIGHUP or SIGWINCH) and the descriptor
/// Foundation watches to learn that the client exited (so it would wait for the server instead).
/// Here the child gets an empty mask, default dispositions, /dev/null for stdio and nothing else.
func spawnClean(_ path: String, _ arguments: [String]) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    cfarm_spawn_closefrom(&actions, 3)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t(), defaults = sigset_t()
    sigemptyset(&none)
    sigemptyset(&defaults)
    for signal: Int32 in 1...31 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + environment).forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environment)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status >> 8) & 0xFF
}
