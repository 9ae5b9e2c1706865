import Foundation
import Glibc
import SystemPackage

extension Spool {
    /// Moves a damaged or foreign file out of the way, into corrupt/, and says so in the log.
    /// Never deletes: a human may want to look at it. Returns false when the file was already gone
    /// (another process set it aside first, or it was a claim race).
    @discardableResult
    public func setAside(_ path: String, reason: String) -> Bool {
        let base = path.split(separator: "/").last.map(String.init) ?? "file"
        let target = corrupt + "/" + base + "." + hex(UInt64.random(in: .min ... .max)).prefix(8)
        do {
            try Sys.renameNoReplace(path, target)
        } catch where error == .noSuchFileOrDirectory {
            return false
        } catch {
            log("cannot set aside \(path) (\(reason)): \(error)")
            return false
        }
        log("set aside \(path.dropFirst(root.count + 1)) as corrupt/\(target.split(separator: "/").last!): \(reason)")
        return true
    }

    /// Appends one line to log/farm.log: time, pid, message. Logging never fails its caller.
    public func log(_ message: String) {
        let line = Timestamp.iso8601(Sys.now()) + " pid " + String(getpid()) + " " + message
        try? Sys.appendLine(logFile, line.replacingOccurrences(of: "\n", with: " "))
    }
}

/// ISO 8601 times with milliseconds in UTC, as the status document and the log write them.
public enum Timestamp {
    public static func iso8601(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        let millis = Int((seconds - seconds.rounded(.down)) * 1000)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(parts.tm_year + 1900, 4) + "-" + pad(parts.tm_mon + 1, 2) + "-" + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + ":" + pad(parts.tm_min, 2) + ":" + pad(parts.tm_sec, 2) + "."
            + pad(Int32(millis), 3) + "Z"
    }
}
