import CInotifyTools
import Glibc
import Synchronization

/// One inotify event, copied out of libinotifytools' static buffer.
struct InotifyEvent: Sendable, Equatable {
    /// The watch it came from; -1 for a queue overflow.
    var wd: Int32
    var mask: UInt32
    /// The entry's name inside the watched directory ("" for events on the directory itself).
    var name: String

    func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }
}

/// The process's inotify instance, through libinotifytools. Every unsafe call of the status lives
/// here.
///
/// libinotifytools keeps global state (one instance per process), so at most one `InotifyWatch`
/// may be open at a time; `close()` (or `deinit`) ends it and a new one may be opened. Used by one
/// thread only (the watcher's).
///
/// Its `next_event` waits in whole seconds (and in 3.22 a timeout of 0 means "forever"), too coarse
/// for a watcher that must also notice SIGTERM and process deaths: so the instance's descriptor is
/// found in /proc/self/fd and waited on with poll(2), and events are drained without blocking.
final class InotifyWatch {
    private static let open = Atomic<Bool>(false)
    private let fd: Int32
    private var closed = false

    init() throws(StatusError) {
        guard Self.open.exchange(true, ordering: .sequentiallyConsistent) == false else {
            throw StatusError("an inotify watch is already open in this process (libinotifytools allows one)")
        }
        let before = Self.inotifyDescriptors()
        guard inotifytools_initialize() != 0 else {
            Self.open.store(false, ordering: .sequentiallyConsistent)
            throw StatusError("cannot start inotify: \(String(cString: strerror(inotifytools_error())))")
        }
        guard let fd = Self.inotifyDescriptors().subtracting(before).first else {
            inotifytools_cleanup()
            Self.open.store(false, ordering: .sequentiallyConsistent)
            throw StatusError("cannot find the inotify descriptor in /proc/self/fd")
        }
        self.fd = fd
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        inotifytools_cleanup()
        Self.open.store(false, ordering: .sequentiallyConsistent)
    }

    /// Watches directory `path` for `events` (IN_* flags); returns its watch descriptor.
    func watch(_ path: String, events: Int32) throws(StatusError) -> Int32 {
        guard inotifytools_watch_file(path, events | IN_ONLYDIR) != 0 else {
            throw StatusError("cannot watch \(path): \(String(cString: strerror(inotifytools_error())))")
        }
        // The library files directories under their path with a trailing slash.
        let wd = inotifytools_wd_from_filename(path.hasSuffix("/") ? path : path + "/")
        guard wd > 0 else { throw StatusError("cannot watch \(path): it vanished") }
        return wd
    }

    /// Waits up to `timeout` seconds for events, then returns every event already queued (possibly
    /// none). Returns early, with no events, when a signal interrupts the wait.
    func next(timeout: Double) -> [InotifyEvent] {
        var events = drain()
        guard events.isEmpty else { return events }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(max(0, timeout) * 1000)) > 0 else { return [] }
        events = drain()
        return events
    }

    /// Every event libinotifytools has buffered or the kernel has queued, without waiting.
    private func drain() -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        // next_events(0, 1): select(2) with a zero timeout, so it never blocks.
        while let event = inotifytools_next_events(0, 1) {
            let length = Int(event.pointee.len)
            var name = ""
            if length > 0 {
                // The flexible `name` member is not imported: it follows the fixed part, NUL-padded.
                let bytes = UnsafeRawPointer(event) + MemoryLayout<inotify_event>.size
                name = String(cString: bytes.assumingMemoryBound(to: CChar.self))
            }
            events.append(InotifyEvent(wd: event.pointee.wd, mask: event.pointee.mask, name: name))
        }
        return events
    }

    /// The descriptors of this process that are inotify instances.
    private static func inotifyDescriptors() -> Set<Int32> {
        var found = Set<Int32>()
        for name in SpoolFiles.names("/proc/self/fd") ?? [] {
            guard let fd = Int32(name) else { continue }
            var target = [CChar](repeating: 0, count: 64)
            let length = readlink("/proc/self/fd/" + name, &target, target.count - 1)
            guard length > 0 else { continue }
            if String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == "anon_inode:inotify" {
                found.insert(fd)
            }
        }
        return found
    }
}

extension InotifyEvent {
    /// What the kernel sends when its queue overflowed and events were dropped.
    static let overflow = InotifyEvent(wd: -1, mask: UInt32(bitPattern: IN_Q_OVERFLOW), name: "")
}
