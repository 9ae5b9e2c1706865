import FarmDesired
import FarmSpool
import FarmSystem
import Glibc
import SystemPackage

/// inotify's events, made by looking: for a spool that other hosts change (FUSE, NFS), where inotify
/// reports only what this host did. The watcher, `top` and `serve` read its events as they read
/// inotify's, so their logic is the same in both modes (see `Polling`).
///
/// Every `interval` it stats each watched directory and reads again only those whose version (inode,
/// mtime, ctime) changed, or changed less than `settle` ago: a file system whose timestamps are
/// coarser than the time between two changes gives both the same mtime, so a directory is read again
/// until it has been still for a while. A read is compared with the last one and each difference
/// becomes an event: a name that came (IN_MOVED_TO, or IN_CREATE where that is what was asked), went
/// (IN_MOVED_FROM or IN_DELETE), or whose file was replaced by rename (IN_MOVED_TO again; files are
/// told apart by a stat each, except job and claim names, which are never replaced); a directory gone
/// or replaced gives IN_DELETE_SELF and IN_IGNORED, and its watch ends. Job names are kept as bitmaps
/// per list (`JobSet`), so a folder of 100k finished jobs costs about 12 KB and is compared a word
/// at a time.
///
/// Owned by one thread.
public final class PollWatch {
    /// Seconds between two looks.
    public let interval: Double
    /// How long a directory is read again after its last change.
    static let settle = 2.0

    private struct Entry: Equatable {
        var isDirectory: Bool
        /// The file's version; nil for directories and for names that are never replaced.
        var version: FileVersion?
    }

    /// The names of a directory at one read.
    private struct Entries: Equatable {
        var jobs: [String: JobSet] = [:]
        var others: [String: Entry] = [:]
    }

    private struct Watched {
        var path: String
        var events: UInt32
        var version: FileVersion
        /// When its version last changed (monotonic seconds).
        var changedAt: Double
        var entries: Entries
    }

    private var watches: [Int32: Watched] = [:]
    private var nextDescriptor: Int32 = 1
    private var nextLook: Double

    public init(interval: Double = Polling.interval) {
        self.interval = interval
        nextLook = Clock.monotonic() + interval
    }

    /// Starts watching directory `path` for `events` (IN_* flags) from its content now, or, when it
    /// is `new` (it just appeared: inotify would have watched it empty), from none, so the next look
    /// reports what it holds already. Watching it again returns the same descriptor, as inotify does.
    /// Throws why it cannot be read.
    public func watch(_ path: String, events: UInt32, new: Bool = false) throws(Errno) -> Int32 {
        if let (wd, _) = watches.first(where: { $0.value.path == path }) { return wd }
        let st = try FileSystem.stat(path)
        guard st.isDirectory else { throw Errno.notDirectory }
        let entries = new ? Entries() : try Self.read(path)
        let wd = nextDescriptor
        nextDescriptor += 1
        watches[wd] = Watched(path: path, events: events, version: FileVersion(st), changedAt: Clock.monotonic(),
                              entries: entries)
        return wd
    }

    public func removeWatch(_ wd: Int32) {
        watches[wd] = nil
    }

    /// Seconds until the next look (0 when it is due).
    public var untilNextLook: Double { max(0, nextLook - Clock.monotonic()) }

    /// Waits up to `timeout` seconds for the next look, then returns its events (possibly none);
    /// none at once when the look is not due within `timeout`.
    public func next(timeout: Double) -> [InotifyEvent] {
        let wait = min(timeout, untilNextLook)
        // Its caller's timeout bounds it: what would end the wait early is the caller's to look at after.
        if wait > 0 { Clock.pause(wait, every: wait) }
        guard untilNextLook == 0 else { return [] }
        nextLook = Clock.monotonic() + interval
        return look()
    }

    /// One look at every watched directory.
    func look() -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        let now = Clock.monotonic()
        for wd in watches.keys.sorted() {
            guard var watched = watches[wd] else { continue }
            guard let st = try? FileSystem.stat(watched.path), st.isDirectory,
                  UInt64(st.inode.rawValue) == watched.version.inode else {
                events.append(InotifyEvent(wd: wd, mask: UInt32(IN_DELETE_SELF), name: ""))
                events.append(InotifyEvent(wd: wd, mask: UInt32(IN_IGNORED), name: ""))
                watches[wd] = nil
                continue
            }
            let version = FileVersion(st)
            if version != watched.version {
                watched.version = version
                watched.changedAt = now
            } else if now - watched.changedAt >= Self.settle {
                continue
            }
            guard let entries = try? Self.read(watched.path) else { continue }  // gone: the next look says so
            if entries != watched.entries {
                Self.compare(entries, with: watched.entries, wd: wd, asked: watched.events, into: &events)
                watched.entries = entries
            }
            watches[wd] = watched
        }
        return events
    }

    /// The names in `path`, job names as bitmaps, with a version for each file that may be replaced.
    /// Job names are parsed from the bytes the folder gives, with no String made for each (a folder
    /// may hold 100k of them, all of one list).
    private static func read(_ path: String) throws(Errno) -> Entries {
        var entries = Entries()
        var others: [(name: String, isDirectory: Bool?)] = []
        var list: (bytes: [UInt8], id: String, jobs: JobSet)?
        try FileSystem.forEachEntry(path) { name, isDirectory in
            guard isDirectory != true, let index = jobIndex(name) else {
                others.append((String(decoding: name, as: UTF8.self), isDirectory))
                return
            }
            if list == nil || !list!.bytes.elementsEqual(name.prefix(16)) {
                if let list { entries.jobs[list.id] = list.jobs }
                let bytes = Array(name.prefix(16)), id = String(decoding: bytes, as: UTF8.self)
                list = (bytes, id, entries.jobs[id] ?? JobSet())
            }
            list!.jobs.insert(index)
        }
        if let list { entries.jobs[list.id] = list.jobs }
        for (name, known) in others {
            let isDirectory: Bool
            var version: FileVersion?
            if let known, known || ActiveName(name) != nil {
                isDirectory = known
            } else {
                // Files that may be replaced by rename (a summary, a sidecar, a control file) are told apart
                // by their version; a folder that does not give d_type costs a stat per name too.
                let st = try? FileSystem.lstat(path + "/" + name)
                isDirectory = st?.isDirectory ?? false
                version = isDirectory || ActiveName(name) != nil ? nil : st.map(FileVersion.init)
            }
            entries.others[name] = Entry(isDirectory: isDirectory, version: version)
        }
        return entries
    }

    /// The index of the job named `name` (`<list>.<index>`, as `JobName` reads it), or nil when it is
    /// no job name.
    private static func jobIndex(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
        guard name.count > 17, name.count <= 27, name[16] == UInt8(ascii: ".") else { return nil }
        for byte in name[..<16] where !((byte >= 48 && byte <= 57) || (byte >= 97 && byte <= 102)) { return nil }
        // No leading zero (but "0" itself): one index, one name.
        guard name[17] != UInt8(ascii: "0") || name.count == 18 else { return nil }
        var index = 0
        for byte in name[17...] {
            guard byte >= 48 && byte <= 57 else { return nil }
            index = index * 10 + Int(byte - 48)
        }
        return index
    }

    /// The events that turn `old` into `new` for watch `wd`, of the kinds it asked for.
    private static func compare(_ new: Entries, with old: Entries, wd: Int32, asked: UInt32,
                                into events: inout [InotifyEvent]) {
        let came = asked & UInt32(IN_MOVED_TO) != 0 ? UInt32(IN_MOVED_TO) : asked & UInt32(IN_CREATE)
        let went = asked & UInt32(IN_MOVED_FROM) != 0 ? UInt32(IN_MOVED_FROM) : asked & UInt32(IN_DELETE)
        func add(_ mask: UInt32, _ name: String, directory: Bool) {
            guard mask != 0 else { return }
            events.append(InotifyEvent(wd: wd, mask: mask | (directory ? UInt32(IN_ISDIR) : 0), name: name))
        }
        for list in Set(new.jobs.keys).union(old.jobs.keys) {
            let now = new.jobs[list] ?? JobSet(), before = old.jobs[list] ?? JobSet()
            guard now != before else { continue }
            now.compare(with: before, onlyHere: { add(came, list + "." + String($0), directory: false) },
                        onlyThere: { add(went, list + "." + String($0), directory: false) })
        }
        for (name, entry) in new.others where old.others[name] != entry {
            if let previous = old.others[name], previous.isDirectory != entry.isDirectory {
                add(went, name, directory: previous.isDirectory)
            }
            add(came, name, directory: entry.isDirectory)
        }
        for (name, entry) in old.others where new.others[name] == nil {
            add(went, name, directory: entry.isDirectory)
        }
    }
}

/// Whether the live parts of farm (the watcher, `top`, `serve`, `wait`) poll the spool instead of
/// trusting inotify. Stateless.
public enum Polling {
    /// Seconds between two looks at the spool: the status stays within about twice this of it.
    public static let interval = 0.5

    /// Whether `spool` is polled: `forced` (`--poll`), or the farm was started with `--poll` (which
    /// control/desired.json keeps), or its file system is one other hosts change unseen by inotify
    /// (FUSE, NFS: see `FileSystem.isShared`).
    public static func isNeeded(_ spool: Spool, forced: Bool = false) -> Bool {
        reason(spool, forced: forced) != nil
    }

    /// Why `spool` is polled, in a few words for the log; nil when it is not (see `isNeeded`).
    public static func reason(_ spool: Spool, forced: Bool = false) -> String? {
        if forced { return "--poll" }
        if FileSystem.isShared(spool.root) { return "other hosts share its file system, and inotify does not see them" }
        return spool.control.desired().poll ? "the farm was started with --poll" : nil
    }
}
