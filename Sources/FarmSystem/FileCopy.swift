import CFarmShims
import Glibc
import SystemPackage

extension FileDescriptor {
    /// How `copyContents(of:)` made its copy.
    public enum CopyMade: Sendable {
        /// FICLONE: the copy shares the source's extents until either is written (copy on write).
        case reflink
        /// The bytes copied (copy_file_range, else read and write).
        case copy
    }

    /// Makes this empty file, open for writing, hold the whole of `source` as a file of its own: a write
    /// to either leaves the other as it was. A reflink where the file system has them (Btrfs, XFS), else
    /// a copy: copy_file_range, which the kernel does without the bytes passing through this process,
    /// else (across file systems of other kinds, on older kernels) read and write.
    @discardableResult
    public func copyContents(of source: FileDescriptor) throws(Errno) -> CopyMade {
        if cfarm_clone_file(rawValue, source.rawValue) == 0 { return .reflink }
        let cloneError = Errno.current
        // EOPNOTSUPP: no reflinks here; EXDEV: two file systems; EINVAL: not on the blocks' bounds, or
        // not the same kind of file system; ENOTTY, ENOSYS: an ioctl the file system (a FUSE one) does not know.
        guard [.notSupported, .improperLink, .invalidArgument, .inappropriateIOCTLForDevice, .noFunction]
            .contains(cloneError) else { throw cloneError }
        var from: Int64 = 0, to: Int64 = 0
        while true {
            let n = cfarm_copy_file_range(source.rawValue, &from, rawValue, &to, 1 << 30)
            if n == 0 { return .copy }
            if n > 0 { continue }
            let error = Errno.current
            if error == .interrupted { continue }
            // Not between these two (EXDEV, EINVAL, EOPNOTSUPP) or not at all (ENOSYS): the bytes are read
            // and written from where it stopped.
            guard [.improperLink, .invalidArgument, .notSupported, .noFunction].contains(error) else { throw error }
            break
        }
        var offset = Int(from)
        try withUnsafeTemporaryAllocation(byteCount: 256 << 10, alignment: 16) { buffer throws(Errno) in
            while true {
                let count = try source.read(at: offset, into: buffer)
                if count == 0 { return }
                try write(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]), at: offset)
                offset += count
            }
        }
        return .copy
    }

    /// fchmod(2): the permission bits of the open file.
    public func setPermissions(_ mode: UInt32) throws(Errno) {
        if fchmod(rawValue, mode_t(mode)) != 0 { throw Errno.current }
    }
}
