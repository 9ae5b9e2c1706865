import CInotifyTools
import FarmSystem
import Glibc
import Synchronization
import SystemPackage

/// The process's inotify instance, through libinotifytools (its events are FarmSystem's
/// `InotifyEvent`, copied out of the library's static buffer).
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
    private let fd: FileDescriptor
    private var closed = false

    init() throws(StatusError) {
        guard Self.open.exchange(true, ordering: .sequentiallyConsistent) == false else {
            throw StatusError(.watchFailed, "an inotify watch is already open in this process (libinotifytools allows one)")
        }
        let before = Self.inotifyDescriptors()
        guard inotifytools_initialize() != 0 else {
            Self.open.store(false, ordering: .sequentiallyConsistent)
            throw StatusError(.watchFailed, "cannot start inotify: \(String(cString: strerror(inotifytools_error())))")
        }
        guard let fd = Self.inotifyDescriptors().subtracting(before).first else {
            inotifytools_cleanup()
            Self.open.store(false, ordering: .sequentiallyConsistent)
            throw StatusError(.watchFailed, "cannot find the inotify descriptor in /proc/self/fd")
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
            throw StatusError(.watchFailed, "cannot watch \(path): \(String(cString: strerror(inotifytools_error())))")
        }
        // The library files directories under their path with a trailing slash.
        let wd = inotifytools_wd_from_filename(path.hasSuffix("/") ? path : path + "/")
        guard wd > 0 else { throw StatusError(.watchFailed, "cannot watch \(path): it vanished") }
        return wd
    }

    /// Waits up to `timeout` seconds for events, then returns every event already queued (possibly
    /// none). Returns early, with no events, when a signal interrupts the wait.
    func next(timeout: Double) -> [InotifyEvent] {
        let events = drain()
        guard events.isEmpty else { return events }
        Readiness.wait([fd], timeout: timeout)
        return drain()
    }

    /// Every event libinotifytools has buffered or the kernel has queued, without waiting.
    private func drain() -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        // next_events(0, 1): select(2) with a zero timeout, so it never blocks.
        while let event = inotifytools_next_events(0, 1) { events.append(InotifyEvent(event)) }
        return events
    }

    /// The descriptors of this process that are inotify instances.
    private static func inotifyDescriptors() -> Set<FileDescriptor> {
        Set(FileSystem.names("/proc/self/fd").compactMap { name in
            guard let fd = Int32(name),
                  (try? FileSystem.readLink("/proc/self/fd/" + name)) == "anon_inode:inotify" else {
                return nil
            }
            return FileDescriptor(rawValue: fd)
        })
    }
}
