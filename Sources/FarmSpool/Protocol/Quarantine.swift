import FarmSystem
import FoundationEssentials
import SystemPackage

extension Spool {
    /// Appends one line to log/farm.log: time, pid, message. Logging never fails its caller.
    public func log(_ message: String) {
        let line = Timestamp.iso8601(Clock.wall()) + " pid " + String(Processes.current()) + " " + message
        try? FileSystem.appendLine(logFile, line.replacing("\n", with: " "))
        Journal.send("pid " + String(Processes.current()) + " " + message)
    }

    /// Says that the spool was removed under this process, which stops: in the log when there still is
    /// one (the spool was replaced), else on standard error (a supervised process's is the log it had).
    public func logGone(_ role: String) {
        let message = "\(role) stopping: the spool \(root) was removed"
        if FileSystem.exists(logDirectory) && !isGone { log(message) } else {
            let line = Timestamp.iso8601(Clock.wall()) + " pid " + String(Processes.current()) + " " + message + "\n"
            try? FileDescriptor.standardError.write(contentsOf: Array(line.utf8))
        }
    }
}
