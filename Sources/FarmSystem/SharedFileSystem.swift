import CFarmShims

extension FileSystem {
    /// File systems (statfs f_type) that other hosts change too, and whose changes from there inotify
    /// never reports: FUSE (GlusterFS, sshfs), NFS, SMB/CIFS, 9p, Ceph, AFS and the cluster file systems.
    private static let sharedTypes: Set<UInt32> = [
        0x6573_5546,  // FUSE
        0x6969,  // NFS
        0x517B, 0xFE53_4D42, 0xFF53_4D42,  // SMB, SMB2, CIFS
        0x0102_1997,  // 9p
        0x00C3_6400,  // Ceph
        0x5346_414F,  // AFS
        0x7461_636F, 0x0116_1970,  // OCFS2, GFS2
    ]

    /// Whether `path` is on a file system that other hosts may change unseen by inotify (see
    /// `sharedTypes`): one statfs(2). False when it cannot be asked.
    public static func isShared(_ path: String) -> Bool {
        var type: Int64 = 0
        guard cfarm_statfs_type(path, &type) == 0 else { return false }
        return sharedTypes.contains(UInt32(truncatingIfNeeded: type))
    }
}
