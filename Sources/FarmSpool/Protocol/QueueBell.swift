import FarmSystem
import Glibc

/// `control/bell`: its atime is touched whenever jobs enter the queue (an add's batch, a crawled page's
/// links, an edit's new resource, a held list let go), and an idle claimer sleeps until it is, instead of a
/// plain back-off. A recursive list grows by a few links a page, so its frontier is often empty for
/// moments: a claimer that slept 50 to 100 ms each time left most slots idle while a page's links waited
/// (at 20 ms a response, several responses' time). The back-off stays the ceiling: a ring from another
/// host's mount (which no inotify sees) costs what it cost before.
///
/// One a worker, shared by its transfer slots: inotify instances are few (128 a user by default). Its
/// thread reads the inotify watch and advances a `Generation` that the slots wait on. A slot reads `count`
/// before it looks at the queue, so a ring between its look and its sleep is never slept through.
public final class QueueBell: Sendable {
    private let rings = Generation()

    /// Nil when no inotify instance is to be had: the caller sleeps as before.
    public init?(_ spool: Spool) {
        let path = spool.control.path(.bell)
        do { try FileSystem.createEmptyFile(path, mode: 0o600) } catch where error == .fileExists {} catch { return nil }
        // A ring sets the atime alone (`FileSystem.touch`), which inotify reports as IN_ACCESS; nobody reads it.
        guard let inotify = Inotify(), (try? inotify.watch(path, events: UInt32(IN_ACCESS | IN_ATTRIB))) != nil
        else { return nil }
        let rings = rings
        // The thread owns the instance from here on (Inotify is one thread's).
        nonisolated(unsafe) let owned = inotify
        Threads.detach {
            let inotify = owned
            var ready = pollfd(fd: inotify.descriptor.rawValue, events: Int16(POLLIN), revents: 0)
            while true {
                guard poll(&ready, 1, -1) >= 0 || errno == EINTR else { return }
                if !inotify.drain().isEmpty { rings.advance() }
            }
        }
    }

    /// Rings so far: read before looking at the queue, handed to `wait`.
    public var count: Int { rings.current }

    /// Sleeps up to `seconds`, less when the bell rang since `seen`. True: it rang.
    @discardableResult
    public func wait(_ seconds: Double, since seen: Int) -> Bool { rings.wait(seconds, since: seen) }
}
