import FarmSpool
import FarmSystem
import Glibc
import SystemPackage

/// How every reader of the spool learns what changed: the watcher, `farm top`, `farm serve` and `farm wait`
/// all read inotify's events through this one protocol, made either by the kernel (`InotifyFeed`) or, where
/// the kernel cannot see other hosts' changes (FUSE, NFS: `Polling`), by looks at the spool (`PollWatch`),
/// so their logic is the same in both modes. Owned by one thread.
public protocol ChangeFeed: AnyObject {
    /// Watches directory `path` for `events` (IN_* flags); watching it again returns the same descriptor.
    /// A `new` directory just appeared: a poll then reports what it holds already, as inotify saw it come.
    func watch(_ path: String, events: UInt32, new: Bool) throws(Errno) -> Int32
    func removeWatch(_ wd: Int32)
    /// Waits up to `timeout` seconds for events (or for `input` to be readable), then returns those there
    /// are, possibly none; a signal ends the wait early. `hungUp` is set when `input` is gone.
    func next(timeout: Double, input: FileDescriptor?, hungUp: inout Bool) -> [InotifyEvent]
}

extension ChangeFeed {
    public func watch(_ path: String, events: UInt32) throws(Errno) -> Int32 {
        try watch(path, events: events, new: false)
    }

    public func next(timeout: Double) -> [InotifyEvent] {
        var hungUp = false
        return next(timeout: timeout, input: nil, hungUp: &hungUp)
    }
}

/// The feed for `spool`: inotify, or looks every `Polling.interval` where `poll` (see `Polling.isNeeded`).
/// Nil when inotify cannot be had (out of instances).
public func changeFeed(poll: Bool) -> (any ChangeFeed)? {
    poll ? PollWatch() : InotifyFeed()
}

/// The kernel's events, from an inotify instance of this feed's own (FarmSystem's `Inotify`), so any
/// number of feeds may live in one process (a demo's `top` beside its other code, the tests).
public final class InotifyFeed: ChangeFeed {
    private let inotify: Inotify

    public init?() {
        guard let inotify = Inotify() else { return nil }
        self.inotify = inotify
    }

    public func watch(_ path: String, events: UInt32, new: Bool) throws(Errno) -> Int32 {
        try inotify.watch(path, events: events | UInt32(IN_ONLYDIR))
    }

    public func removeWatch(_ wd: Int32) { inotify.removeWatch(wd) }

    public func next(timeout: Double, input: FileDescriptor?, hungUp: inout Bool) -> [InotifyEvent] {
        let events = inotify.drain()
        guard events.isEmpty else { return events }
        if !Readiness.wait([inotify.descriptor] + (input.map { [$0] } ?? []), timeout: timeout) { hungUp = true }
        return inotify.drain()
    }
}

extension PollWatch: ChangeFeed {
    public func next(timeout: Double, input: FileDescriptor?, hungUp: inout Bool) -> [InotifyEvent] {
        if let input {
            // Input (a key) ends the wait early; the look comes when it is due.
            if !Readiness.wait([input], timeout: min(timeout, untilNextLook)) { hungUp = true }
            return next(timeout: 0)
        }
        return next(timeout: timeout)
    }
}
