import FarmSpool
import FarmSystem
import FarmTransfer
import SystemPackage

/// Fetches a page of a paged source, or a list's cover, over the follower's one curl handle, into a
/// scratch file of the spool's tmp/ (removed by `farm stop` should the follower die with it open). Owned
/// by the follower's thread.
struct PageFetch {
    let spool: Spool
    let handle: EasyHandle
    /// The most one page may weigh: a page is read into memory whole.
    var maxPageBytes = 64 << 20
    var caFile: String?
    /// Says whether to stop now (a stop signal): the transfer is then aborted.
    let stopping: () -> Bool

    /// The body of `url`; throws the transfer's error (`.aborted` when told to stop).
    func page(_ url: String) throws(TransferError) -> [UInt8] {
        let path = spool.scratchPath("page")
        defer { try? FileSystem.unlink(path) }
        try download(url, to: path, maxSize: maxPageBytes)
        do { return try FileSystem.readFile(path, limit: maxPageBytes) } catch {
            throw TransferError(.transient, "cannot read the page back from \(path): \(error)")
        }
    }

    /// Downloads `url` into a new file at `path` (a file there is replaced).
    func download(_ url: String, to path: String, maxSize: Int) throws(TransferError) {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, .readWrite, options: [.create, .truncate], permissions: 0o600)
        } catch {
            throw TransferError(.transient, "cannot write to \(path): \(error)")
        }
        defer { fd.closeQuietly() }
        let request = DownloadRequest(url: url, maxSize: maxSize, connectTimeout: 15, stallTimeout: 30, caFile: caFile)
        _ = try handle.download(request, into: fd) { _ in !stopping() }
    }
}
