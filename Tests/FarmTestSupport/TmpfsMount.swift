import Glibc

/// A tmpfs of a fixed size mounted for one test at a fresh temporary directory: a small file system the
/// test can fill, to see what farm does when its disk runs short. Mounting needs root (`isPossible`).
///
/// `unmount()` (also run on release) detaches it even while something still holds it open (then the
/// kernel frees it when the last user goes), so no test leaves a mount behind, whatever its outcome.
/// One test owns it.
public final class TmpfsMount {
    /// Whether this process may mount: it runs as root.
    public static var isPossible: Bool { geteuid() == 0 }

    public let path: String
    private let directory: TemporaryDirectory
    private var mounted: MountPoint?

    public init(megabytes: Int) throws {
        directory = TemporaryDirectory("farm-tmpfs")
        path = directory.path
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(megabytes)m") == 0 else {
            throw CommandFailed("cannot mount a tmpfs at \(path): \(String(cString: strerror(errno)))")
        }
        mounted = MountPoint(path)
    }

    public func unmount() { mounted = nil }

    deinit { unmount() }  // before `directory` goes
}

/// A file system mounted at `path` by a test's helper (TmpfsMount, XfsMount): detached when released, even
/// while something still holds it open (the kernel then frees it when the last user goes).
final class MountPoint {
    let path: String

    init(_ path: String) { self.path = path }

    deinit { if umount2(path, 0) != 0 { _ = umount2(path, Int32(MNT_DETACH)) } }
}
