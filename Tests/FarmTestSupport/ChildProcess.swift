import Foundation
import Glibc

/// A process started by a test, ended by the test (by pid, never by name).
///
/// Its standard output is collected line by line so a test can wait for what it printed.
/// `deinit` kills it if the test did not, so no test leaves a process behind.
public final class ChildProcess: @unchecked Sendable {
    public let process: Process
    private let lock = NSLock()
    private var output = ""
    private var errors = ""
    /// Handlers between reading a chunk and appending it.
    private var appending = 0
    private let pipes: [Pipe]

    public var pid: Int32 { process.processIdentifier }

    /// Starts `executable` (a name in `Executables`, or a path) with `arguments`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable.contains("/") ? executable : Executables.path(executable))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        pipes = [out, err]
        for (pipe, isOutput) in [(out, true), (err, false)] {
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                self?.lock.withLock { self?.appending += 1 }
                let data = handle.availableData
                guard let self else { return }
                self.lock.withLock {
                    self.appending -= 1
                    if isOutput { self.output += String(decoding: data, as: UTF8.self) } else {
                        self.errors += String(decoding: data, as: UTF8.self)
                    }
                }
            }
        }
        try process.run()
    }

    public var standardOutput: String { lock.withLock { output } }
    public var standardError: String { lock.withLock { errors } }
    public var outputLines: [String] { standardOutput.split(separator: "\n").map(String.init) }

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
        drain()
        return process.terminationStatus
    }

    /// Waits until the handlers have taken in everything the process wrote before it exited: no byte
    /// left in either pipe and no chunk read but not yet appended. (A descendant that kept the pipes
    /// open, such as a detached supervisor, may write more later; that is not waited for.)
    private func drain() {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let pending = pipes.reduce(Int32(0)) { total, pipe in
                var count: Int32 = 0
                _ = ioctl(pipe.fileHandleForReading.fileDescriptor, UInt(FIONREAD), &count)
                return total + count
            }
            if pending == 0 && lock.withLock({ appending }) == 0 { return }
            Thread.sleep(forTimeInterval: 0.002)
        }
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
                timeout: Double = 120, input: [UInt8]? = nil) throws -> (status: Int32, output: String, error: String) {
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
