import FarmManifest
import FarmSpool
import FarmSystem
import FarmTransfer

extension Coordinator {
    /// The lists of the manifest at `source` (an http(s) URL, fetched into tmp/ and deleted after, or a
    /// local path), read and named as `add` and `farm sync` read them. A URL is fetched with `request`'s
    /// headers, cookies and proxy (SPEC §12).
    public static func lists(from source: String, spool: Spool, request: RequestOptions? = nil) throws(AddError)
        -> [ManifestList] {
        if ManifestSource.isURL(source) {
            let path = try ManifestSource.fetch(source, into: spool, request: request)
            defer { try? FileSystem.unlink(path) }
            return try readLists(path: path, displayName: urlFileName(source), spool: spool)
        }
        do { try FileSystem.checkReadable(source) } catch {
            throw AddError(.unreadable, source, cause: error)
        }
        return try readLists(path: source, displayName: source, spool: spool)
    }

    private static func readLists(path: String, displayName: String, spool: Spool) throws(AddError) -> [ManifestList] {
        do { return try Manifest.read(path: path, displayName: displayName, scratch: spool.tmp) } catch {
            throw AddError(.malformed, displayName, cause: error)
        }
    }
}
