import FarmManifest
import FarmSpool
import FarmSystem
import FarmTransfer
import SystemPackage

/// Where a manifest comes from: a local file, standard input (`-`), or an http(s) URL fetched into the
/// spool's tmp/.
enum ManifestSource {
    /// The manifest of the original app, fetched when `farm add` is given no source.
    static let original = "https://storage.googleapis.com/nabstudio/Developer/iOS/Interview/"
        + "Image%20Downloader/JSON%20files%20updated.zip"

    /// The most a fetched manifest may weigh.
    static let maxBytes = 256 << 20

    /// The source that names standard input (`farm add -`, SPEC §15).
    static let standardInput = "-"

    /// The name of the list read from standard input, when it is one list rather than a zip.
    static let standardInputName = "stdin"

    static func isURL(_ source: String) -> Bool { WebScheme(of: source) != nil }

    /// A fresh file under the spool's tmp/ for a manifest on its way in, open to write; the caller closes it.
    private static func scratchFile(in spool: Spool) throws(AddError) -> (String, FileDescriptor) {
        let path = spool.scratch.path("manifest")
        do {
            return (path, try FileDescriptor.open(path, .readWrite, options: [.create, .exclusiveCreate],
                                                  permissions: 0o600))
        } catch {
            throw AddError(.scratch, spool.tmp, cause: error)
        }
    }

    /// Downloads `url` to a fresh file under the spool's tmp/ and returns its path; the caller
    /// deletes it, with the list's `request` options (SPEC §12). Errors say that the network or the URL is the problem.
    static func fetch(_ url: String, into spool: Spool, request: RequestOptions?) throws(AddError) -> String {
        let (path, fd) = try scratchFile(in: spool)
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

    /// Copies standard input, to its end, into a fresh file under the spool's tmp/ and returns its path; the
    /// caller deletes it. A file rather than memory: a zip needs one, and a big list is mapped from it as a
    /// local file is. More than `maxBytes` is refused as a fetched manifest is.
    static func readStandardInput(into spool: Spool) throws(AddError) -> String {
        let (path, fd) = try scratchFile(in: spool)
        defer { fd.closeQuietly() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var copied = 0
        while true {
            let count: Int
            do throws(Errno) { count = try FileDescriptor.standardInput.readRetrying(into: buffer) } catch {
                try? FileSystem.unlink(path)
                throw AddError(.unreadable, "standard input", cause: error)
            }
            if count == 0 { return path }
            copied += count
            guard copied <= maxBytes else {
                try? FileSystem.unlink(path)
                throw AddError(.malformed, "standard input", cause: ManifestError(
                    .tooLarge, file: "standard input", reason: "larger than \(maxBytes >> 20) MiB, the most a manifest may hold"))
            }
            do throws(Errno) { try fd.write(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count])) } catch {
                try? FileSystem.unlink(path)
                throw AddError(.scratch, spool.tmp, cause: error)
            }
        }
    }
}
