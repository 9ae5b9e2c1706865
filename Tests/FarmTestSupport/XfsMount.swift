import Foundation
import Glibc

/// An XFS file system (reflinks, which ext4 and tmpfs do not have) made in a sparse image and mounted by a
/// loop device for one test, at a fresh temporary directory. Needs root, mkfs.xfs and a loop device: `make()`
/// is nil, with the reason printed, where the machine has none of them. `unmount()` (also run on release)
/// detaches it, and the loop device goes with it (mount sets it to clear itself).
public final class XfsMount {
    public let path: String
    private let directory: TemporaryDirectory
    private var mounted: MountPoint?

    /// The mount, or nil (and why, printed) where this machine cannot make one.
    public static func make(megabytes: Int = 320) throws -> XfsMount? {
        guard TmpfsMount.isPossible else {
            print("XfsMount: not root, no mount")
            return nil
        }
        guard FileManager.default.isExecutableFile(atPath: mkfs) else {
            print("XfsMount: no \(mkfs)")
            return nil
        }
        return try XfsMount(megabytes: megabytes)
    }

    static let mkfs = "/usr/sbin/mkfs.xfs"

    private init(megabytes: Int) throws {
        directory = TemporaryDirectory("farm-xfs")
        let image = directory.appending("xfs.img")
        path = directory.appending("mnt")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: image, contents: nil), truncate(image, off_t(megabytes) << 20) == 0 else {
            throw CommandFailed("cannot make the image \(image)")
        }
        let made = try run(Self.mkfs, ["-q", image], timeout: 60)
        guard made.status == 0 else { throw CommandFailed("mkfs.xfs \(image): \(made.error)") }
        let mount = try run("/usr/bin/mount", ["-o", "loop", image, path], timeout: 60)
        guard mount.status == 0 else { throw CommandFailed("mount -o loop \(image): \(mount.error)") }
        mounted = MountPoint(path)
    }

    public func unmount() { mounted = nil }

    deinit { unmount() }  // before `directory` goes
}
