import FarmSpool
import Glibc

/// The server's own inotify instance on status/, control/ and progress/: what tells the event streams
/// to look again, so no browser ever polls. Raw inotify_init1 (like `farm top`'s ChangeWatch) rather
/// than FarmStatus's libinotifytools wrapper, which allows one instance per process.
///
/// `farm reset` deletes the directories under it: a lost watch is added again at the next `wait` once
/// the directory is back. Made by the hub, then used by the hub's thread alone (hence unchecked).
final class StatusWatch: @unchecked Sendable {
    /// What the events said, coarsely: the summary (or a control file) changed, or only sidecars did.
    struct Changes {
        var summary = false
        var sidecars = false
    }

    private static let events = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF)
        | UInt32(IN_MOVE_SELF | IN_CLOSE_WRITE)

    private let descriptor: Int32
    private let directories: [String]
    private var watches: [Int32: String] = [:]
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(spool: Spool) throws(ServeError) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw ServeError(500, "cannot watch the spool for changes: \(String(cString: strerror(errno)))")
        }
        directories = [spool.status, spool.control, spool.progress]
        addMissingWatches()
    }

    deinit { close(descriptor) }

    /// Waits up to `timeout` seconds for events, then returns what they changed (nothing on a time-out).
    func wait(timeout: Double) -> Changes {
        var fds = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&fds, 1, Int32(max(0, timeout) * 1000))
        var changes = Changes()
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.withUnsafeBytes { parse(UnsafeRawBufferPointer(rebasing: $0[0..<count]), into: &changes) }
        }
        if watches.count < directories.count {
            addMissingWatches()
            changes.summary = true
        }
        return changes
    }

    private func parse(_ bytes: UnsafeRawBufferPointer, into changes: inout Changes) {
        let header = MemoryLayout<inotify_event>.size
        var offset = 0
        while offset + header <= bytes.count {
            let wd = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            offset += header + length
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                changes.summary = true
                changes.sidecars = true
                continue
            }
            guard let directory = watches[wd] else { continue }
            if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                // Gone (a reset): forget it; `wait` adds it again once the directory is back.
                watches[wd] = nil
                inotify_rm_watch(descriptor, wd)
                changes.summary = true
                continue
            }
            if directory == directories[2] { changes.sidecars = true } else { changes.summary = true }
        }
    }

    private func addMissingWatches() {
        for directory in directories where !watches.values.contains(directory) {
            let wd = inotify_add_watch(descriptor, directory, Self.events | UInt32(IN_ONLYDIR))
            if wd >= 0 { watches[wd] = directory }
        }
    }
}
