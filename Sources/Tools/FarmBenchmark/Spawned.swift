import ArgumentParser
import FarmSystem
import Foundation
import Glibc

/// A child process run to completion through posix_spawn and wait4: its wall time and its own peak RSS.
/// The peak comes from GNU time (`/usr/bin/time -f %M`), because our own `ru_maxrss` of a child is
/// useless here: Linux keeps the largest RSS a process had before exec, and a posix_spawn child starts
/// in this (large) process's memory. time is small, so what it reports is the tool's.
/// Its stdout and stderr go to `log`, so a failure can quote it.
enum Spawned {
    struct Result {
        var status: Int32
        var seconds: Double
        /// Peak resident set of the child, in bytes (not of its own children).
        var peakRSS: Int
        /// CPU seconds (user + system) of the child and of the children it waited for: the tool's
        /// whole run under GNU time.
        var cpu: Double
        /// When it was started, Unix seconds.
        var started: Double
    }

    /// Runs `executable` (a path, or a name looked up in PATH) and waits. Fails on a non-zero exit
    /// unless `check` is false. `sample`, when given, is called about every `samplingInterval` seconds
    /// until the child exits (its exit is then seen within 2 ms).
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], log: String, check: Bool = true,
                    sample: (() -> Void)? = nil) throws -> Result {
        let peakFile = log + ".rss"
        defer { unlink(peakFile) }
        let timed = access(Self.gnuTime, X_OK) == 0
        let wall = Clock.wall()
        let start = Clock.monotonic()
        let pid = try spawn((timed ? [Self.gnuTime, "-f", "%M", "-o", peakFile] : []) + [executable] + arguments,
                            log: log)
        var status: Int32 = 0
        var usage = rusage()
        if let sample {
            var next = start
            while true {
                let reaped = wait4(pid, &status, WNOHANG, &usage)
                if reaped == pid || (reaped < 0 && errno != EINTR) { break }
                if Clock.monotonic() >= next {
                    sample()
                    next = Clock.monotonic() + samplingInterval
                }
                usleep(2000)
            }
        } else {
            while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        }
        let seconds = Clock.monotonic() - start
        let code = exitCode(status)
        // time's file ends with the peak in KiB (after a "Command exited with…" line on failure).
        let peakKiB = timed ? (try? String(contentsOfFile: peakFile, encoding: .utf8))
            .flatMap { $0.split(separator: "\n").last }.flatMap { Int($0) } ?? 0 : usage.ru_maxrss
        let result = Result(status: code, seconds: seconds, peakRSS: peakKiB * 1024,
                            cpu: usage.ru_utime.seconds + usage.ru_stime.seconds, started: wall)
        if check && code != 0 {
            let tail = (try? String(contentsOfFile: log, encoding: .utf8)).map { String($0.suffix(600)) } ?? ""
            throw ValidationError("\(executable) \(arguments.prefix(4).joined(separator: " ")) exited \(code): \(tail)")
        }
        return result
    }

    static let gnuTime = "/usr/bin/time"

    /// Runs `executable` (a path) and waits, the child sharing this process's standard input, output and
    /// error, so what it prints comes in place (what this process printed before is flushed first).
    /// Returns its exit code.
    static func attached(_ executable: String, _ arguments: [String]) throws -> Int32 {
        fflush(nil)  // every stream: stdout itself is not reachable from Swift 6
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let error = posix_spawn(&pid, executable, nil, nil, argv, environ)
        guard error == 0 else {
            throw ValidationError("cannot start \(executable): \(String(cString: strerror(error)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return exitCode(status)
    }

    /// The exit code in a wait status: 128 + the signal's number when a signal ended the process, as a
    /// shell reports it.
    static func exitCode(_ status: Int32) -> Int32 {
        // Exited normally: the low 7 bits are 0 and the code is the next byte; else a signal ended it.
        status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
    static let samplingInterval = 0.1

    /// Starts `executable` without waiting (a server); the caller ends it by pid.
    static func start(_ executable: String, _ arguments: [String], log: String) throws -> pid_t {
        try spawn([executable] + arguments, log: log)
    }

    /// Spawns `command` (its first word looked up in PATH) with stdin from /dev/null and stdout and
    /// stderr appended to `log`.
    private static func spawn(_ command: [String], log: String) throws -> pid_t {
        do { return try Processes.spawn(command[0], command, output: log, searchingPath: true) } catch {
            throw ValidationError("cannot start \(command[0]): \(error)")
        }
    }

    /// The peak RSS (VmHWM) of a live process, in bytes; 0 when it is gone.
    static func peakRSS(of pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kB = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kB * 1024
    }

    /// The resident set (VmRSS) and proportional set (Pss: shared pages divided among their sharers) of
    /// a live process, in bytes; 0 when it is gone.
    static func memory(of pid: pid_t) -> (rss: Int, pss: Int) {
        func kB(_ file: String, _ field: String) -> Int {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/" + file, encoding: .utf8),
                  let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
                  let value = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
            return value * 1024
        }
        return (kB("status", "VmRSS:"), kB("smaps_rollup", "Pss:"))
    }

    /// The fields of /proc/<pid>/stat after the command name (which may hold spaces), from field 3
    /// (the state) on; nil when the process is gone.
    static func stat(of pid: pid_t) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// CPU seconds (user + system) a live process has used so far (fields 14 and 15, in clock
    /// ticks); 0 when it is gone.
    static func cpu(of pid: pid_t) -> Double {
        guard let fields = stat(of: pid), fields.count > 13,
              let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// This executable, wherever it was started from (a name found in PATH, a symbolic link).
    static var me: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The sibling executable `name` of this one (the farm built in the same configuration).
    static func sibling(_ name: String) -> String {
        (me as NSString).deletingLastPathComponent + "/" + name
    }
}

extension timeval {
    var seconds: Double { Double(tv_sec) + Double(tv_usec) / 1e6 }
}
