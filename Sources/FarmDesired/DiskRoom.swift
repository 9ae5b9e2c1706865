import FarmJSON
import FarmSpool
import FarmSystem

/// The disk guard of SPEC §10: the room left on the spool's file system against the minimum the farm
/// keeps free (`Desired.minFree`). Below it workers start no new transfer, and the status says the farm
/// is paused by the disk; the transfers already running go on (a write that finds the disk full hands
/// its job back, bytes kept), and work resumes by itself once files are removed.
///
/// Every process judges it from statvfs(2) itself, so nothing needs to be written to a disk that is
/// short of room, and no process's death leaves the farm paused. A value; any thread.
public struct DiskRoom: Equatable, Sendable {
    /// The default minimum: 1 GiB, or 5 % of a file system smaller than 20 GiB.
    public static func defaultMinFree(size: Int) -> Int { min(1 << 30, size / 20) }

    /// Bytes still free for an unprivileged writer.
    public var free: Int
    /// Bytes kept free: below them no new transfer starts.
    public var minFree: Int

    public init(free: Int, minFree: Int) {
        self.free = free
        self.minFree = minFree
    }

    /// Whether the free bytes are under the minimum: the farm starts no new transfer.
    public var isShort: Bool { free < minFree }
}



extension DiskRoom: JSONRecord {}

extension Spool {
    /// The room on the spool's file system now, against `minFree` (nil: the default for its size); nil
    /// when statvfs fails, which says nothing about the room and so never pauses the farm.
    public func diskRoom(minFree: Int?) -> DiskRoom? {
        guard let space = try? DiskSpace.of(root) else { return nil }
        return DiskRoom(free: space.free, minFree: minFree ?? DiskRoom.defaultMinFree(size: space.size))
    }
}
