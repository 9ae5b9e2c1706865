import FarmSystem
import SystemPackage

/// What a job's bytes are fetched by: the one step of a job's path that depends on its URL's scheme. A
/// job asks `FetchScheme` once which fetcher its URL takes; claim, sharing, storing, converting and
/// completing are the same whatever fetched the bytes. libcurl's HTTP(S) is one (`EasyHandle`), a file
/// of this machine another (`FileFetcher`, for lists that allow it).
///
/// A fetcher keeps the bytes already in `fd` when it can resume them as `DownloadRequest` says, writes
/// the rest, and never leaves a file made of two versions (SPEC §2). `progress` is called as bytes land;
/// false aborts with `.aborted`, keeping them.
public protocol Fetcher: AnyObject {
    func download(_ request: DownloadRequest, into fd: FileDescriptor, size: Int?,
                  progress: @escaping (TransferProgress) -> Bool) throws(TransferError) -> DownloadResult
    /// The body bytes the last `download` put in its file, kept or not (for the metrics).
    var lastWritten: Int { get }
}

extension EasyHandle: Fetcher {}

/// A URL's scheme, as far as fetching goes: decided once for a job, from its URL and its list's options.
/// Everything else of farm asks `WebScheme` (http and https are all that manifests, pages, redirects and
/// hosts know); `file` exists only for the transfer of a list added with `--allow-file-urls`.
public enum FetchScheme: Sendable, Equatable {
    case web(WebScheme)
    case file

    /// Nil when farm does not fetch `url`: not http(s), nor a `file:///` URL of a list that allows them
    /// (SPEC §5 refuses `file:` by default: a manifest from elsewhere must not read this machine's files).
    public init?(of url: String, allowingFiles: Bool) {
        if let web = WebScheme(of: url) {
            self = .web(web)
        } else if allowingFiles, FileFetcher.path(of: url) != nil {
            self = .file
        } else {
            return nil
        }
    }
}
