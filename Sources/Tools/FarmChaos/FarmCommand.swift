import FarmCluster
import Foundation
import Glibc

/// Runs the `farm` executable on one spool, as a user would. Every process it starts is its child and
/// is waited for; `farm add` may also be started in the background to be killed half-way.
struct FarmCommand {
    let executable: String
    let spool: String
    /// What runs farm: nothing, or `nsenter --uts=…` for a cluster host, whose processes must carry its
    /// host name. nsenter execs farm in place, so the pid started is farm's.
    var launcher: [String] = []

    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `farm <arguments> --spool <spool>` to its end (killed after `timeout` seconds).
    @discardableResult
    func run(_ arguments: [String], timeout: Double = 120) throws -> Result {
        let process = try start(arguments, capture: true)
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

    /// Runs the command and throws unless it exits 0.
    @discardableResult
    func must(_ arguments: [String], timeout: Double = 120) throws -> String {
        let result = try run(arguments, timeout: timeout)
        guard result.status == 0 else {
            throw ChaosError("farm \(arguments.joined(separator: " ")) exited \(result.status): "
                + result.error.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return result.output
    }

    /// Starts `farm <arguments> --spool <spool>` and returns at once; its output is discarded unless
    /// `capture`.
    func start(_ arguments: [String], capture: Bool = false) throws -> Process {
        let command = launcher + [executable] + arguments + ["--spool", spool]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = capture ? Pipe() : FileHandle.nullDevice
        process.standardError = capture ? Pipe() : FileHandle.nullDevice
        do { try process.run() } catch {
            throw ChaosError("cannot run \(command[0]): \(error.localizedDescription)")
        }
        return process
    }
}

extension FarmCommand {
    /// `farm` on a cluster host's mount, under its host name.
    init(executable: String, on host: ClusterHost) {
        self.init(executable: executable, spool: host.spool, launcher: host.launcher)
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
