import Foundation
import Glibc

/// A process started by a test, ended by the test (by pid, never by name).
///
/// Its standard output and error go to files of its own, read when a test asks: a test can wait for a
/// line it printed. Not pipes read by Foundation's `readabilityHandler`: each is a dispatch source over a
/// descriptor, which libdispatch requires be cancelled before the descriptor closes (a pipe that goes with
/// its ChildProcess, the number reused by the next test, is the hazard of swift-corelibs-libdispatch #833
/// and why swift-subprocess left DispatchIO on Linux, #47). A file also holds everything written before
/// the exit, and blocks no writer, a detached supervisor among them.
/// `deinit` kills the process if the test did not, so no test leaves a process behind.
public final class ChildProcess: @unchecked Sendable {
    public let process: Process
    private let files = TemporaryDirectory("farm-child")

    public var pid: Int32 { process.processIdentifier }

    /// Starts `executable` (a name in `Executables`, or a path) with `arguments`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable.contains("/") ? executable : Executables.path(executable))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        let handles = try [files.appending("stdout"), files.appending("stderr")].map { path in
            FileManager.default.createFile(atPath: path, contents: nil)
            return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }
        defer { for handle in handles { try? handle.close() } }
        process.standardOutput = handles[0]
        process.standardError = handles[1]
        try process.run()
    }

    public var standardOutput: String { read("stdout") }
    public var standardError: String { read("stderr") }

    /// The lines of its standard output that are whole: while it runs, what follows the last newline
    /// may be a line still being written.
    public var outputLines: [String] {
        let running = process.isRunning
        var lines = standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        if running || lines.last?.isEmpty == true { lines.removeLast() }
        return lines.filter { !$0.isEmpty }.map(String.init)
    }

    private func read(_ name: String) -> String {
        String(decoding: FileManager.default.contents(atPath: files.appending(name)) ?? Data(), as: UTF8.self)
    }

    /// Waits (with a deadline) for a line of output starting with `prefix`.
    @discardableResult
    public func waitForLine(startingWith prefix: String, timeout: Double = 30) -> String? {
        var found: String?
        poll(timeout: timeout) {
            found = outputLines.first { $0.hasPrefix(prefix) }
            return found != nil
        }
        return found
    }

    /// Waits for the process to exit; returns its status, or nil past the deadline.
    @discardableResult
    public func wait(timeout: Double = 60) -> Int32? {
        guard poll(timeout: timeout, { !process.isRunning }) else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    public func kill(_ signal: Int32 = SIGKILL) {
        if process.isRunning { Glibc.kill(pid, signal) }
    }

    deinit {
        if process.isRunning {
            Glibc.kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// Runs `executable` to completion and returns (status, stdout, stderr). Its output goes to files,
/// read once it has exited: nothing is lost to a pipe reader that had not caught up, and a detached
/// descendant that inherits them (a farm's supervisor) blocks nobody. `input`, when given, is its standard
/// input (from a file too, so a process that does not read it all blocks nobody either).
public func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                timeout: Double = 120, input: [UInt8]? = nil, directory: String? = nil)
    throws -> (status: Int32, output: String, error: String) {
    let dir = TemporaryDirectory()
    if let input {
        let inPath = dir.appending("stdin")
        FileManager.default.createFile(atPath: inPath, contents: Data(input))
    }
    let outPath = dir.appending("stdout"), errPath = dir.appending("stderr")
    FileManager.default.createFile(atPath: outPath, contents: nil)
    FileManager.default.createFile(atPath: errPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.contains("/") ? executable : Executables.path(executable))
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    process.standardOutput = out
    process.standardError = err
    let inHandle = try input.map { _ in try FileHandle(forReadingFrom: URL(fileURLWithPath: dir.appending("stdin"))) }
    if let inHandle { process.standardInput = inHandle }
    try process.run()
    try? out.close()
    try? err.close()
    try? inHandle?.close()
    let exited = poll(timeout: timeout) { !process.isRunning }
    if !exited {
        Glibc.kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
    let output = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
    let errors = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
    guard exited else { return (-1, output, errors + "\n(timed out after \(timeout) s)") }
    return (process.terminationStatus, output, errors)
}
