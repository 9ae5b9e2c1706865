import FarmSystem
import Foundation
import Glibc

/// What /proc says about the processes of this machine: which exist, their arguments, their UTS
/// namespace (a cluster host's processes share one). A pid seen long ago may name another process by
/// now: whoever kills by pid checks first that it is still the one meant.
public enum ProcessTable {
    /// Every pid of the machine, but this process's.
    public static func pids() -> [pid_t] {
        let me = getpid()
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid_t($0) }
            .filter { $0 != me }
    }

    /// The arguments `pid` runs with (its title, for farm's processes), empty once it is gone.
    public static func arguments(_ pid: pid_t) -> [String] {
        guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
        return raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The inode of `pid`'s UTS namespace, nil once it is gone.
    public static func utsNamespace(_ pid: pid_t) -> UInt64? {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/uts"),
              link.hasPrefix("uts:["), link.hasSuffix("]") else { return nil }
        return UInt64(link.dropFirst(5).dropLast())
    }

    /// The inode of the namespace file at `path` (a bind mount of one), which is the namespace's.
    public static func namespaceInode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    /// Whether `pid` runs (a zombie does not: it waits only for its parent to reap it).
    public static func isAlive(_ pid: pid_t) -> Bool {
        guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
              let close = raw.lastIndex(of: UInt8(ascii: ")")), close + 2 < raw.count else { return false }
        return ![UInt8(ascii: "Z"), UInt8(ascii: "X")].contains(raw[close + 2])
    }

    /// Ends `pids`: SIGTERM and up to `grace` seconds to exit (none: SIGKILL at once), then SIGKILL.
    /// Returns the pids still alive 5 s after that.
    @discardableResult
    public static func end(_ pids: [pid_t], grace: Double = 0) -> [pid_t] {
        var left = pids.filter(isAlive)
        if grace > 0 {
            for pid in left { kill(pid, SIGTERM) }
            left = waitForExit(left, seconds: grace)
        }
        for pid in left { kill(pid, SIGKILL) }
        return waitForExit(left, seconds: 5)
    }

    private static func waitForExit(_ pids: [pid_t], seconds: Double) -> [pid_t] {
        var left = pids
        Clock.poll(every: 0.02, for: seconds) {
            left = left.filter(isAlive)
            return left.isEmpty
        }
        return left
    }
}
