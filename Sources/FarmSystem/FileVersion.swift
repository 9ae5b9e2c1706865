import SystemPackage

/// What tells one state of a file or folder from the next, as stat(2) tells it: the inode (a file
/// replaced by rename is another one), the mtime (a folder's changes when an entry comes or goes) and
/// the ctime. Compared, never converted: network file systems hand out inode numbers of 2^63 and more.
/// A value; any thread.
public struct FileVersion: Equatable, Sendable {
    public var inode: UInt64
    public var modified: Duration
    public var changed: Duration

    public init(_ st: Stat) {
        inode = UInt64(st.inode.rawValue)
        modified = .seconds(st.st_mtim.tv_sec) + .nanoseconds(st.st_mtim.tv_nsec)
        changed = .seconds(st.st_ctim.tv_sec) + .nanoseconds(st.st_ctim.tv_nsec)
    }
}

extension FileSystem {
    /// The version of what `path` leads to; nil when it cannot be had (gone).
    public static func version(_ path: String) -> FileVersion? {
        (try? stat(path)).map(FileVersion.init)
    }
}
