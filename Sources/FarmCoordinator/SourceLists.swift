import FarmManifest
import FarmSpool
import FarmSystem
import FarmTransfer

extension Coordinator {
    /// The lists of the manifest at `source` (an http(s) URL, fetched into tmp/ and deleted after, `-` for
    /// standard input, copied into tmp/ likewise, or a local path), read and named as `add` and `farm sync`
    /// read them. A URL is fetched with `request`'s headers, cookies and proxy (SPEC §12).
    public static func lists(from source: String, spool: Spool, request: RequestOptions? = nil) throws(AddError)
        -> [ManifestList] {
        // Else "": cannot read the manifest, a sentence that names nothing (an unset variable in a script).
        if source.isEmpty { throw AddError(.noSource, source) }
        if source == ManifestSource.standardInput {
            let path = try ManifestSource.readStandardInput(into: spool)
            defer { try? FileSystem.unlink(path) }
            var lists = try readLists(path: path, displayName: ManifestSource.standardInputName, spool: spool)
            // One list piped in is named by what it holds: a second `farm add -` of other URLs is another list,
            // not a conflict with the first, and the same URLs again add nothing, as for any manifest. (A zip's
            // lists keep their file names; none of them can be named `stdin`, which has no .json or .txt.)
            if lists.count == 1, lists[0].name == ManifestSource.standardInputName {
                lists[0].name += "-" + digest(of: lists[0]).prefix(8)
            }
            return lists
        }
        if ManifestSource.isURL(source) {
            let path = try ManifestSource.fetch(source, into: spool, request: request)
            defer { try? FileSystem.unlink(path) }
            return try readLists(path: path, displayName: urlFileName(source), spool: spool,
                                 instead: "to download it: farm get \(source), or echo \(source) | farm add -")
        }
        do { try FileSystem.checkReadable(source) } catch {
            throw AddError(.unreadable, source, cause: error)
        }
        return try readLists(path: source, displayName: source, spool: spool)
    }

    /// The lists of the manifest at `path`. `instead`: what to do with a picture, a PDF or a zip of them,
    /// given where a list goes.
    private static func readLists(path: String, displayName: String, spool: Spool,
                                  instead: String = "farm get URL downloads one file, as echo URL | farm add - queues it")
        throws(AddError) -> [ManifestList] {
        do { return try Manifest.read(path: path, displayName: displayName, scratch: spool.tmp) } catch {
            guard error.code == .notAList else { throw AddError(.malformed, displayName, cause: error) }
            throw AddError(.malformed, displayName,
                           cause: ManifestError(.notAList, file: error.file, reason: error.reason + "; " + instead))
        }
    }
}
