import Foundation
import Glibc

/// A process started by a test with a pseudo-terminal as its standard input, output and error, as a
/// user's shell would run it: what it draws for the terminal is read from the master side and kept.
/// Ended by the test, by pid; `deinit` kills it if the test did not.
public final class TerminalProcess: @unchecked Sendable {
    public let process = Process()
    private let master: Int32
    private let screen = Screen()
    private let finished = DispatchSemaphore(value: 0)

    public var pid: Int32 { process.processIdentifier }

    /// Starts `executable` (a name in `Executables`, or a path) with `arguments` on a terminal of
    /// `columns` × `rows`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                columns: UInt16 = 100, rows: UInt16 = 30) throws {
        // posix_openpt, unlockpt and ptsname are hidden from Swift's Glibc (they need _XOPEN_SOURCE): the
        // same through /dev/ptmx and its two ioctls, TIOCSPTLCK and TIOCGPTN (_IOW/_IOR('T', 0x31/0x30, int),
        // the same numbers on x86_64 and arm64).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0, number: UInt32 = 0
        guard master >= 0, ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0,
              let slave = FileHandle(forUpdatingAtPath: "/dev/pts/\(number)") else {
            throw CommandFailed("cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        process.executableURL = URL(fileURLWithPath: executable.contains("/") ? executable : Executables.path(executable))
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = slave
        process.standardOutput = slave
        process.standardError = slave
        try process.run()
        try? slave.close()
        let fd = master, screen = screen, finished = finished
        // Polls with a timeout, so that `deinit` can end it before closing the master: a descendant of the
        // process (a detached supervisor) may hold the slave side open for good.
        Thread.detachNewThread {
            defer { finished.signal() }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !screen.isStopping {
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard Glibc.poll(&ready, 1, 50) > 0 else { continue }
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { return }  // EIO once the last holder of the slave side has gone
                screen.append(buffer[..<n])
            }
        }
    }

    /// Everything the process wrote to its terminal so far.
    public var output: String { screen.text }

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
        screen.stop()
        finished.wait()
        close(master)
    }

    /// What the reader thread took in, behind a lock.
    private final class Screen: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        private var stopping = false

        var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
        var isStopping: Bool { lock.withLock { stopping } }
        func append(_ chunk: ArraySlice<UInt8>) { lock.withLock { bytes += chunk } }
        func stop() { lock.withLock { stopping = true } }
    }
}
