import FarmSystem
import Foundation
import Glibc

/// Runs a program to its end and hands back what it said: `farm` itself (through `FarmCommand`) and the
/// system tools a cluster is made with (ip, gluster, mount, nsenter).
enum Command {
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `arguments` (the first one a path) to its end, killed after `timeout` seconds; its output
    /// and errors together in `output`. Started with posix_spawn, every other descriptor closed, and
    /// its output in a file read once it has exited: a daemon it starts (glusterd, a GlusterFS client)
    /// keeps what it inherited, and a pipe would never end.
    static func run(_ arguments: [String], timeout: Double = 60) throws -> Result {
        let file = NSTemporaryDirectory() + "/farm-chaos-\(getpid())-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        defer { unlink(file) }
        let pid: pid_t
        do { pid = try Processes.spawn(arguments[0], arguments, output: file) } catch {
            throw ChaosError("cannot run \(arguments[0]): \(error)")
        }
        let deadline = Clock.monotonic() + timeout
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Clock.monotonic() >= deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(2000)
        }
        // The exit status is status's second byte when the low 7 bits (the signal) are 0.
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let output = String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self)
        return Result(status: code, output: output, error: "")
    }

    /// Runs `arguments` and throws, with what it wrote on stderr, unless it exits 0.
    @discardableResult
    static func must(_ arguments: [String], timeout: Double = 60) throws -> String {
        let result = try run(arguments, timeout: timeout)
        guard result.status == 0 else {
            let said = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
            throw ChaosError("\(arguments.joined(separator: " ")) exited \(result.status)"
                + (said.isEmpty ? "" : ": " + said.split(separator: "\n").suffix(3).joined(separator: " / ")))
        }
        return result.output
    }

    /// Starts `arguments` and returns at once; its output is discarded unless `capture`.
    static func start(_ arguments: [String], capture: Bool = false) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = capture ? Pipe() : FileHandle.nullDevice
        process.standardError = capture ? Pipe() : FileHandle.nullDevice
        do { try process.run() } catch {
            throw ChaosError("cannot run \(arguments[0]): \(error.localizedDescription)")
        }
        return process
    }

    /// Waits for a process started with `capture` and collects its output; SIGKILLs it after `timeout`.
    static func wait(for process: Process, timeout: Double) -> Result {
        let out = process.standardOutput as! Pipe, err = process.standardError as! Pipe
        let killer = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        // Read before waiting: a long status document would fill the pipe and block the child.
        let errorData = LockedData()
        let errorReader = Thread { errorData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        errorReader.start()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killer.cancel()
        while !errorData.isSet { usleep(1000) }
        return Result(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
                      error: String(decoding: errorData.value, as: UTF8.self))
    }
}

/// Bytes handed from a reader thread to the caller.
final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    func set(_ value: Data) { lock.withLock { data = value } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}

/// A failure of the chaos run itself (not a finding): one line for the user.
struct ChaosError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
