import FarmSystem
import SystemPackage

/// Fetches `file:///path` URLs: a copy of a regular file of this machine, for lists added with
/// `--allow-file-urls` (the second `Fetcher`, beside libcurl's). The copy always starts from the first
/// byte: a local file is cheap to read again, and bytes kept from an earlier copy might be of another
/// version of it (SPEC §2: no output of two versions). Its `Last-Modified` is the file's time; `farm sync`
/// does not revalidate it (its conditional requests are libcurl's, http(s) only: it logs the resource as not
/// revalidated and keeps it).
public final class FileFetcher: Fetcher {
    public private(set) var lastWritten = 0

    /// Copied a chunk at a time, each one a progress call (which may abort).
    static let chunk = 1 << 20

    public init() {}

    /// The absolute path a `file:` URL names (`file:///a/b`, `file://localhost/a/b`, percent-decoded);
    /// nil for another host's file, a relative one, or no `file:` URL at all.
    public static func path(of url: String) -> String? {
        let lowered = url.prefix(7).lowercased()
        guard lowered == "file://" else { return nil }
        var rest = url.dropFirst(7)
        if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
        guard rest.hasPrefix("/"), !rest.contains("?"), !rest.contains("#"),
              let path = rest.percentDecoded, !path.contains("\0") else { return nil }
        return path
    }

    public func download(_ request: DownloadRequest, into fd: FileDescriptor, size: Int?,
                         progress: @escaping (TransferProgress) -> Bool) throws(TransferError) -> DownloadResult {
        lastWritten = 0
        guard let path = Self.path(of: request.url) else {
            throw TransferError(.permanent, "not a file of this machine: \(request.url)")
        }
        let source: FileDescriptor
        do { source = try FileDescriptor.open(path, .readOnly) } catch {
            throw TransferError(.permanent, "cannot open \(path): \(error)")
        }
        defer { source.closeQuietly() }
        guard let st = try? source.status(), st.isRegularFile else {
            throw TransferError(.permanent, "\(path) is not a regular file")
        }
        let total = Int(st.size)
        if total > request.maxSize { throw TransferError(.permanent, "larger than the \(request.maxSize)-byte limit") }
        do { try fd.truncate(to: 0) } catch { throw TransferError(.transient, "cannot empty the partial file: \(error)") }
        var head: [UInt8] = []
        var quick = request.quickDigestLimit >= total ? QuickDigest() : nil
        var offset = 0
        try withUnsafeTemporaryAllocation(byteCount: Self.chunk, alignment: 64) { buffer throws(TransferError) in
            while true {
                let read: Int
                do throws(Errno) { read = try source.read(at: offset, into: buffer) } catch {
                    throw TransferError(.transient, "cannot read \(path): \(error)")
                }
                if read == 0 { break }
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<read])
                if offset + read > request.maxSize {
                    throw TransferError(.permanent, "larger than the \(request.maxSize)-byte limit")
                }
                if offset == 0 {
                    head = Array(bytes.prefix(TransferContext.headLength))
                    if let refusal = request.refusal, head.count == TransferContext.headLength, let why = refusal(head) {
                        throw TransferError(.permanent, why)
                    }
                }
                do throws(Errno) { lastWritten += try fd.write(contentsOf: bytes, at: offset) } catch {
                    throw TransferError(error.isNoSpace ? .noSpace : .transient, "cannot write the download: \(error)")
                }
                quick?.update(bytes)
                offset += read
                guard progress(TransferProgress(bytes: offset, size: total)) else {
                    throw TransferError(.aborted, "stopped")
                }
            }
        }
        var result = DownloadResult(httpStatus: 200, bytes: offset, resumedFrom: 0, contentType: nil,
                                    modified: ResponseHeaders.imfFixdate(st.modificationTime))
        result.head = head
        result.quickDigest = quick?.finalize()
        return result
    }
}
