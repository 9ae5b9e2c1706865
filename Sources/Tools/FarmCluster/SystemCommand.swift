import FarmSystem
import Foundation
import Glibc

/// Runs the system tools a cluster is made with (ip, gluster, mount, nsenter, unshare) to their end.
public enum SystemCommand {
    public struct Result: Sendable {
        public var status: Int32
        /// What it wrote on standard output and error, together.
        public var output: String
    }

    /// Runs `arguments` (the first one a path) to its end, killed after `timeout` seconds. Started with
    /// posix_spawn, every other descriptor closed, and its output in a file read once it has exited: a
    /// daemon it starts (glusterd, a GlusterFS client) keeps what it inherited, and a pipe would never
    /// end. Not Foundation's Process, which at times never sees such a child exit.
    public static func run(_ arguments: [String], timeout: Double = 60) throws -> Result {
        let file = NSTemporaryDirectory() + "/farm-cluster-\(getpid())-"
            + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        defer { unlink(file) }
        let pid: pid_t
        do { pid = try Processes.spawn(arguments[0], arguments, output: file) } catch {
            throw ClusterError("cannot run \(arguments[0]): \(error)")
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
        return Result(status: code, output: output)
    }

    /// Runs `arguments` and throws, with the end of what it said, unless it exits 0.
    @discardableResult
    public static func must(_ arguments: [String], timeout: Double = 60) throws -> String {
        let result = try run(arguments, timeout: timeout)
        guard result.status == 0 else {
            let said = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
            throw ClusterError("\(arguments.joined(separator: " ")) exited \(result.status)"
                + (said.isEmpty ? "" : ": " + said.split(separator: "\n").suffix(3).joined(separator: " / ")))
        }
        return result.output
    }
}

/// A cluster that could not be made or used: one line for the user.
public struct ClusterError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
