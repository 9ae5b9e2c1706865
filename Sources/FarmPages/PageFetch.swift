import FarmSpool
import FarmSystem
import FarmTransfer
import SystemPackage

/// Fetches a page of a paged source, or a list's cover, into memory over the follower's one curl
/// handle. Owned by the follower's thread.
public struct PageFetch {
    let spool: Spool
    let handle: EasyHandle
    var caFile: String?
    /// Says whether to stop now (a stop signal): the transfer is then aborted.
    package let stopping: () -> Bool

    public init(spool: Spool, handle: EasyHandle, caFile: String?, stopping: @escaping () -> Bool) {
        self.spool = spool
        self.handle = handle
        self.caFile = caFile
        self.stopping = stopping
    }

    /// The body of `url`, at most `maxSize` bytes; throws the transfer's error (`.aborted` when told to
    /// stop), with the list's `request` options (SPEC §12). It goes through a file of tmp/ unlinked as soon as it is made: a follower killed half-way
    /// leaves nothing behind.
    public func body(_ url: String, maxSize: Int, request options: RequestOptions?) throws(TransferError) -> [UInt8] {
        let path = spool.scratch.path("page")
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, .readWrite, options: [.create, .exclusiveCreate], permissions: 0o600)
        } catch {
            throw TransferError(.transient, "cannot write to \(spool.tmp): \(error)")
        }
        try? FileSystem.unlink(path)
        defer { fd.closeQuietly() }
        let request = DownloadRequest(url: url, maxSize: maxSize, connectTimeout: 15, stallTimeout: 30, caFile: caFile,
                                      options: options)
        let result = try handle.download(request, into: fd) { _ in !stopping() }
        var bytes = [UInt8](repeating: 0, count: result.bytes)
        var read = 0
        while read < bytes.count {
            let count = (try? bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in
                    try fd.read(at: read, into: UnsafeMutableRawBufferPointer(rebasing: buffer[read...]))
                }
            }.get()) ?? 0
            guard count > 0 else { throw TransferError(.transient, "cannot read back what was downloaded") }
            read += count
        }
        return bytes
    }
}
