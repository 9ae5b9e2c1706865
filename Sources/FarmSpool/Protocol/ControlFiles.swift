import FarmSystem
import SystemPackage

/// The files of control/, by name.
public enum ControlFile: String, Sendable, CaseIterable {
    /// The desired state (`Desired`).
    case desired = "desired.json"
    /// Present: every transfer is paused.
    case paused
    /// Present: the farm is being stopped; a dead supervisor is not replaced.
    case stopping
    /// Held (flock) by the one watcher that serves the spool; the others wait for it (standby).
    case watcherLock = "watcher.lock"
    /// Held (flock) by the one `farm add` staging now.
    case addLock = "add.lock"
    /// The last bulk sync of finished jobs (Durability.swift), and its lock.
    case synced, syncedLock = "synced.lock"
    /// Held (flock) by the one follower of paged lists (FarmPages).
    case followerLock = "follower.lock"
    /// Touched when jobs enter the queue, to wake idle claimers (QueueBell.swift).
    case bell

    /// Whether the status shows what this file says (the desired workers, the paused flag): a change to
    /// any other (such as the supervisor lock every process probes) only causes re-reads.
    public var isShownInStatus: Bool { self == .desired || self == .paused }

    /// Whether the status shows what the file of control/ named `name` says: one above, a host's
    /// desired workers, or a host's bandwidth cap.
    public static func isShownInStatus(_ name: String) -> Bool {
        ControlFile(rawValue: name)?.isShownInStatus ?? (ControlFiles.host(ofDesiredName: name) != nil
            || ControlFiles.isLimitName(name))
    }
}

/// The files of control/ (the desired state, the paused and stopping flags, the locks of the roles, the bell) and
/// their reads and writes: a part of a `Spool`, reached as `spool.control`. A value; any process or thread.
public struct ControlFiles: Sendable {
    /// The spool, for the modules that add the files they own to this part (FarmDesired).
    package let spool: Spool
    /// `control/`.
    public var folder: String { spool.root + "/control" }

    init(_ spool: Spool) { self.spool = spool }

    /// The path of control file `file`.
    public func path(_ file: ControlFile) -> String { folder + "/" + file.rawValue }

    package var desiredPath: String { path(.desired) }
    /// Held (flock) by the `farm add` that stages now, so two adds of one list never both enqueue it.
    public var addLock: String { path(.addLock) }

    /// `control/paused` present means every transfer is paused.
    public var isPaused: Bool { FileSystem.exists(path(.paused)) }

    public func setPaused(_ paused: Bool) throws(SpoolError) {
        do { try Self.setFlag(path(.paused), paused) } catch {
            throw SpoolError(.io, "cannot \(paused ? "pause" : "resume") the farm", cause: error)
        }
    }

    /// Set while `stop` (or `reset`) runs and until the next `start`: a dead supervisor is then not
    /// replaced by the survivors.
    public var isStopping: Bool { FileSystem.exists(path(.stopping)) }

    public func setStopping(_ stopping: Bool) throws(SpoolError) {
        do { try Self.setFlag(path(.stopping), stopping) } catch {
            throw SpoolError(.io, "cannot mark the farm as \(stopping ? "stopping" : "running")", cause: error)
        }
    }

    /// Creates the empty control file at `path`, or removes it: its presence is the state. Either is
    /// done when it is so already, and on disk before this returns (control/ fsynced: `farm pause` that
    /// exited 0 survives a power cut, SPEC §17).
    private static func setFlag(_ path: String, _ present: Bool) throws(Errno) {
        if present {
            do { try FileSystem.createFile(path, []) } catch where error == .fileExists {}
        } else {
            do { try FileSystem.unlink(path) } catch where error == .noSuchFileOrDirectory {}
        }
        try FileSystem.syncDirectory(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
    }

    /// Takes the add lock (control/add.lock), waiting for it: every way of adding a job holds it while it
    /// reads which URLs the lists name and queues its jobs (FarmLists' URLSharing.swift), and two adds take
    /// turns. The caller closes the descriptor to let go.
    public func lockAdds() throws(Errno) -> FileDescriptor {
        let fd = try FileDescriptor.open(addLock, .readWrite, options: .create, permissions: 0o600)
        do { try fd.lock() } catch {
            fd.closeQuietly()
            throw error
        }
        return fd
    }

    /// Wakes idle claimers of this host (QueueBell): one utimensat, after the jobs are in the queue.
    package func ringBell() {
        do { try FileSystem.touch(path(.bell)) } catch {
            // No bell: no claimer made it, so none is asleep on it.
        }
    }
}

extension Spool {
    /// The files of control/.
    public var control: ControlFiles { ControlFiles(self) }
}
