import Crypto
import FarmSpool
import FarmSystem
import SystemPackage

// The stored bytes of download once (see Dedup.swift): `blobs/<sha256>` is one more name of a downloaded file.
extension Dedup {

    public func blobPath(_ digest: String) -> String { spool.blobs + "/" + digest }
    /// What an older farm kept beside a blob (the keys of the URL records that named it): fsck deletes it.
    package static let oldBlobURLsSuffix = ".urls"

    /// The SHA-256 of the bytes of `fd`, read from its start, as 64 hex digits.
    public static func digest(of fd: FileDescriptor) throws(Errno) -> String {
        var hasher = SHA256()
        try readChunks(of: fd) { chunk in hasher.update(bufferPointer: chunk) }
        return hasher.finalize().withUnsafeBytes(Hex.lowercase)
    }

    /// Hands the bytes of `fd`, from its start, to `body` 64 KiB at a time. Most files are smaller, and
    /// a buffer this size comes from the stack (on a thread short of stack, from malloc's heap: it is
    /// under malloc's mapping threshold), never from a mapping made and unmade per call.
    private static func readChunks(of fd: FileDescriptor, _ body: (UnsafeRawBufferPointer) throws(Errno) -> Void)
        throws(Errno) {
        try withUnsafeTemporaryAllocation(byteCount: 64 << 10, alignment: 16) { buffer throws(Errno) in
            var offset = 0
            while true {
                let count = try fd.read(at: offset, into: buffer)
                if count == 0 { return }
                try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                offset += count
            }
        }
    }

    /// Makes the whole download at `path` (open as `fd`, `size` bytes of `kind`, with the response's
    /// validators) the valid result of `url`: its bytes become a blob, or, when a blob holds the same bytes already, `path` becomes a
    /// name of that blob (its own bytes go); then the URL's record names it.
    /// `sha256`: the digest of those bytes when the caller has it (hashed as they were written), else
    /// they are read back and hashed here. The caller holds the URL's lock. Returns the blob's digest;
    /// nil when nothing was recorded (the URL is then simply not shared).
    @discardableResult
    public func publish(_ path: String, fd: FileDescriptor, url: String, size: Int, kind: String?,
                        etag: String? = nil, modified: String? = nil, sha256: String? = nil) -> String? {
        guard let digest = sha256 ?? (try? Self.digest(of: fd)) else { return nil }
        let blob = blobPath(digest)
        var stored = false
        for _ in 0..<3 where !stored {
            do {
                try FileSystem.link(path, blob)
                stored = true
            } catch where error == .fileExists {
                guard let mine = try? FileSystem.lstat(path), let theirs = try? FileSystem.lstat(blob) else { continue }
                if mine.inode == theirs.inode && mine.deviceID == theirs.deviceID {
                    stored = true
                    continue
                }
                // A blob of another size is not these bytes whatever its name says (a power loss cut it
                // before the disk had it all): these take its place, so no later name shows the cut bytes.
                if mine.size != theirs.size {
                    let scratch = spool.scratchPath("blob")
                    do {
                        try FileSystem.link(path, scratch)
                        try FileSystem.rename(scratch, blob)
                    } catch {
                        try? FileSystem.unlink(scratch)
                        return nil
                    }
                    stored = true
                    continue
                }
                // Equal bytes under another URL: this copy gives way to a name of the stored one.
                let scratch = spool.scratchPath("blob")
                guard (try? FileSystem.link(blob, scratch)) != nil else { continue }  // collected meanwhile
                do { try FileSystem.rename(scratch, path) } catch {
                    try? FileSystem.unlink(scratch)
                    return nil
                }
                stored = true
            } catch {
                spool.log("cannot store the blob of \(url): \(error)")
                return nil
            }
        }
        guard stored else { return nil }
        do {
            try writeURLRecord(URLRecord(url: url, blob: digest, size: size, kind: kind, etag: etag, modified: modified))
        } catch {
            spool.log("cannot record the result of \(url): \(error)")
            return nil
        }
        // A removal that saw the blob with no other name just before the link may collect it now: the
        // record then names nothing, which readers see (they check the blob), and the URL's next transfer
        // replaces it. Not looked for here: it would cost every job a stat for that rare race.
        return digest
    }

    /// Gives the stored result of `url` a new name in tmp/ (`path()`, asked for only when there is one): a
    /// hard link to its blob, or a copy of it where the link fails (too many links, a file system without
    /// them). Nil when there is none.
    public func linkStoredResult(of url: String, to path: () -> String) -> (path: String, record: URLRecord)? {
        guard let (blob, record) = storedResult(of: url) else { return nil }
        let path = path()
        do { try FileSystem.link(blob, path) } catch where error == .noSuchFileOrDirectory {
            return nil  // collected meanwhile
        } catch {
            guard (try? Self.copy(blob, to: path)) != nil else {
                try? FileSystem.unlink(path)
                return nil
            }
        }
        return (path, record)
    }

    private static func copy(_ source: String, to target: String) throws(Errno) {
        let from = try FileDescriptor.open(source, .readOnly)
        defer { from.closeQuietly() }
        let to = try FileDescriptor.open(target, .writeOnly, options: [.create, .exclusiveCreate], permissions: 0o600)
        defer { to.closeQuietly() }
        try readChunks(of: from) { chunk throws(Errno) in try to.write(contentsOf: chunk) }
    }

    /// Deletes the output at `path` (a file or an unpacked folder); when it was a name of a blob and
    /// the blob has no other name left, the blob goes too, with the record of `url` (the output's job's
    /// URL, when the caller knows it) if it names that blob (see Dedup.swift).
    public func removeOutput(_ path: String, url: String? = nil) throws(Errno) {
        guard let st = try? FileSystem.lstat(path), st.type == .regular, st.linkCount > 1,
              let digest = blobDigest(of: path, st) else {
            try FileSystem.removeTree(path)
            return
        }
        try FileSystem.removeTree(path)
        collectIfUnused(digest, inode: st.inode, url: url)
    }

    /// The blob whose name the output at `path` is, and its inode: what `collectIfUnused` takes once
    /// the output was replaced by another file; nil when it is none.
    package func blob(ofOutput path: String) -> (digest: String, inode: Inode)? {
        guard let st = try? FileSystem.lstat(path), st.type == .regular, st.linkCount > 1,
              let digest = blobDigest(of: path, st) else { return nil }
        return (digest, st.inode)
    }

    /// The digest of the blob whose name `path` (stat `st`, a file with more than one name) is; nil
    /// when it is none. The bytes are hashed: only an output with another name gets here, and removals
    /// are rare, so nothing is kept on every output to spare it.
    private func blobDigest(of path: String, _ st: Stat) -> String? {
        guard let fd = try? FileDescriptor.open(path, .readOnly) else { return nil }
        defer { fd.closeQuietly() }
        guard let digest = try? Self.digest(of: fd), let blob = try? FileSystem.lstat(blobPath(digest)),
              blob.inode == st.inode, blob.deviceID == st.deviceID else { return nil }
        return digest
    }

    /// Collects blob `digest` (with the record of `url`, if it names it) when its only name left is
    /// blobs/ and it is still the file `inode`.
    package func collectIfUnused(_ digest: String, inode: Inode, url: String? = nil) {
        guard let st = try? FileSystem.lstat(blobPath(digest)), st.inode == inode, st.linkCount == 1 else { return }
        collectBlob(digest, url: url)
    }

    /// Deletes blob `digest`, and the record of `url` when it names that blob. Other records that name
    /// it name nothing from then on (readers check the blob), and fsck deletes them. A worker that links
    /// the blob at the same moment keeps its bytes (a link made before the unlink holds them); one that
    /// comes after finds no blob and downloads.
    func collectBlob(_ digest: String, url: String? = nil) {
        if let url, let record = urlRecord(key: Self.urlKey(url)), record.url == url, record.blob == digest {
            try? FileSystem.unlink(urlRecordPath(key: Self.urlKey(url)))
        }
        try? FileSystem.unlink(blobPath(digest))
    }
}
