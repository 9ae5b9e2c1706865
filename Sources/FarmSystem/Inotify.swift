import Glibc
import SystemPackage

/// One inotify event.
public struct InotifyEvent: Sendable, Equatable {
    /// The watch it came from; -1 for a queue overflow.
    public var wd: Int32
    public var mask: UInt32
    /// The entry's name inside the watched directory ("" for events on the directory itself).
    public var name: String

    public init(wd: Int32, mask: UInt32, name: String) {
        self.wd = wd
        self.mask = mask
        self.name = name
    }

    /// Copies the event at `event`, a `struct inotify_event` followed by its NUL-padded name (the
    /// flexible `name` member is not imported into Swift).
    public init(_ event: UnsafePointer<inotify_event>) {
        wd = event.pointee.wd
        mask = event.pointee.mask
        name = ""
        if event.pointee.len > 0 {
            let bytes = UnsafeRawPointer(event) + MemoryLayout<inotify_event>.size
            name = String(cString: bytes.assumingMemoryBound(to: CChar.self))
        }
    }

    public func has(_ flags: Int32) -> Bool { mask & UInt32(bitPattern: flags) != 0 }

    /// What the kernel sends when its queue overflowed and events were dropped.
    public static let overflow = InotifyEvent(wd: -1, mask: UInt32(bitPattern: IN_Q_OVERFLOW), name: "")
}

/// An inotify instance of its own (inotify_init1, non-blocking): owns its descriptor and closes it when
/// dropped. Owned by one thread.
public final class Inotify {
    public let descriptor: FileDescriptor
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Nil when inotify cannot be had (out of instances).
    public init?() {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        descriptor = FileDescriptor(rawValue: fd)
    }

    deinit { descriptor.closeQuietly() }

    /// Watches directory `path` for `events` (IN_* flags); adding a watch twice returns the same one.
    public func watch(_ path: String, events: UInt32) throws(Errno) -> Int32 {
        let wd = inotify_add_watch(descriptor.rawValue, path, events)
        if wd < 0 { throw Errno.current }
        return wd
    }

    public func removeWatch(_ wd: Int32) {
        inotify_rm_watch(descriptor.rawValue, wd)
    }

    /// Every event queued so far, without waiting.
    public func drain() -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor.rawValue, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return events }
            buffer.withUnsafeBytes { bytes in
                let header = MemoryLayout<inotify_event>.size
                var offset = 0
                while offset + header <= count {
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    // The name is NUL-padded to `length`; decoded from a plain buffer (String's fast path).
                    let start = offset + header, end = min(count, start + length)
                    var stop = start
                    while stop < end && bytes[stop] != 0 { stop += 1 }
                    events.append(InotifyEvent(
                        wd: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                        mask: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                        name: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<stop]), as: UTF8.self)))
                    offset += header + length
                }
            }
        }
    }
}

/// poll(2) on a few descriptors for reading. Stateless.
public enum Readiness {
    /// Waits until one of `descriptors` is readable, a signal arrives or `timeout` seconds pass.
    /// False when one of them hung up or is invalid: waiting on it again would return at once,
    /// forever.
    @discardableResult
    public static func wait(_ descriptors: [FileDescriptor], timeout: Double) -> Bool {
        var fds = descriptors.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
        let milliseconds = Int32(min(60_000, max(0, (timeout * 1000).rounded(.up))))
        // Readiness, an interruption (EINTR) or the time-out: the caller looks at everything anyway.
        guard poll(&fds, nfds_t(fds.count), milliseconds) > 0 else { return true }
        return !fds.contains { $0.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 }
    }
}
