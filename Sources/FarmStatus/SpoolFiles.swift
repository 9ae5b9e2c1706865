import FarmSpool
import Glibc

/// The few file operations the status needs, as plain calls: reading directories without stat-ing
/// their entries, reading small files, replacing a file atomically. Stateless; any thread.
enum SpoolFiles {
    /// The names in `path` (never "." or ".."), or nil when it cannot be read (gone, not a directory).
    static func names(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The bytes of `path`, or nil when it cannot be read or is larger than `limit`.
    static func read(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > limit { return nil }
        }
    }

    /// Writes `bytes` to `path` through a temporary file in `staging` and a rename, so a reader sees
    /// the old file or the new one, never half of one. Not fsynced: the status is rebuilt anyway.
    static func replace(_ path: String, with bytes: [UInt8], staging: String) throws(StatusError) {
        let temporary = staging + "/status-" + String(getpid()) + "-"
            + String(UInt32.random(in: .min ... .max), radix: 16)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StatusError("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw StatusError("cannot write \(temporary): \(reason)")
            }
            offset += n
        }
        close(fd)
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StatusError("cannot replace \(path): \(reason)")
        }
    }

    /// The modification time of `path` in seconds since the epoch, or nil when it does not exist.
    static func modified(_ path: String) -> Double? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// Wall-clock seconds since the epoch, the clock file times use.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func sleep(_ seconds: Double) {
        usleep(UInt32(max(0, min(seconds, 60)) * 1e6))
    }

    /// Seconds on a clock that never jumps, for intervals.
    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Names of entries in active/: `<job>@<owner>`. The status needs only the job; a name that does not
/// parse is not counted (the spool's own readers set such files aside).
enum ActiveEntry {
    static func job(_ name: String) -> JobName? {
        guard let at = name.firstIndex(of: "@"), name.index(after: at) < name.endIndex else { return nil }
        return JobName(String(name[..<at]))
    }
}
