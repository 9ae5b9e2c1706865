import FarmSpool
import FarmSystem
import FarmTransfer
import SystemPackage

/// Where a manifest comes from: a local file, or an http(s) URL fetched into the spool's tmp/.
enum ManifestSource {
    /// The manifest of the original app, fetched when `farm add` is given no source.
    static let original = "https://storage.googleapis.com/nabstudio/Developer/iOS/Interview/"
        + "Image%20Downloader/JSON%20files%20updated.zip"

    /// The most a fetched manifest may weigh.
    static let maxBytes = 256 << 20

    static func isURL(_ source: String) -> Bool {
        let lower = source.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// Downloads `url` to a fresh file under the spool's tmp/ and returns its path; the caller
    /// deletes it, with the list's `request` options (SPEC §12). Errors say that the network or the URL is the problem.
    static func fetch(_ url: String, into spool: Spool, request: RequestOptions?) throws(AddError) -> String {
        let path = spool.scratchPath("manifest")
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, .readWrite, options: [.create, .exclusiveCreate], permissions: 0o600)
        } catch {
            throw AddError(.scratch, spool.tmp, cause: error)
        }
        defer { fd.closeQuietly() }
        do {
            let handle = try EasyHandle()
            let request = DownloadRequest(url: url, maxSize: maxBytes, connectTimeout: 10, stallTimeout: 30,
                                          options: request)
            _ = try handle.download(request, into: fd) { _ in true }
        } catch {
            try? FileSystem.unlink(path)
            throw AddError(.unfetchable, url, cause: error)
        }
        return path
    }
}
