import Glibc
import SystemPackage

/// The room on the file system that holds a path, from statvfs(2): one system call that reads the
/// super block's counters, no disk access. A value; any thread.
public struct DiskSpace: Equatable, Sendable {
    /// Bytes an unprivileged writer may still use (f_bavail: the root reserve left out).
    public var free: Int
    /// Bytes the file system holds in all.
    public var size: Int

    /// The room on the file system of `path`.
    public static func of(_ path: String) throws(Errno) -> DiskSpace {
        var st = statvfs()
        if statvfs(path, &st) != 0 { throw Errno.current }
        let unit = UInt64(st.f_frsize > 0 ? st.f_frsize : st.f_bsize)
        return DiskSpace(free: bytes(UInt64(st.f_bavail), unit), size: bytes(UInt64(st.f_blocks), unit))
    }

    /// `count` blocks of `unit` bytes, saturated at Int.max: a network file system may report counters
    /// whose product does not fit (a conversion that traps would end the process).
    private static func bytes(_ count: UInt64, _ unit: UInt64) -> Int {
        let (product, overflow) = count.multipliedReportingOverflow(by: unit)
        return overflow ? .max : Int(clamping: product)
    }
}

extension Errno {
    /// A write refused for want of room: the disk is full (ENOSPC) or the writer's quota is (EDQUOT).
    /// Not the data's fault: the same write succeeds once space is freed.
    public var isNoSpace: Bool { self == .noSpace || self == .diskQuotaExceeded }
}
