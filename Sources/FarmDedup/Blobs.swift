import Crypto
import FarmSpool
import FarmSystem
import SystemPackage

// The stored bytes of download once (see Dedup.swift): `blobs/<sha256>` is one more name of a downloaded file.
extension Dedup {

    public func blobPath(_ digest: String) -> String { spool.path(.blobs, digest) }
    /// The attribute a stored file keeps its SHA-256 in once it was computed (see BlobSlots.swift): 64 hex
    /// digits of what its bytes were then, which fsck holds a done output to.
    package static var digestAttribute: String { Fingerprint.digestAttribute }

    /// The SHA-256 of the bytes of `fd`, read from its start, as 64 hex digits.
    public static func digest(of fd: FileDescriptor) throws(Errno) -> String {
        var hasher = SHA256()
        try readChunks(of: fd) { chunk in hasher.update(bufferPointer: chunk) }
        return hasher.finalize().withUnsafeBytes(Hex.lowercase)
    }

    /// The SHA-256 of the file at `path`.
    public static func digest(ofFile path: String) throws(Errno) -> String {
        let fd = try FileDescriptor.open(path, .readOnly)
        defer { fd.closeQuietly() }
        return try digest(of: fd)
    }

    /// Hands `count` bytes of `fd` from `offset` (all of them to its end when nil) to `body` 64 KiB at a
    /// time. Most files are smaller, and a buffer this size comes from the stack (on a thread short of
    /// stack, from malloc's heap: it is under malloc's mapping threshold), never from a mapping made and
    /// unmade per call.
    static func readChunks(of fd: FileDescriptor, from offset: Int = 0, count: Int? = nil,
                           _ body: (UnsafeRawBufferPointer) throws(Errno) -> Void) throws(Errno) {
        try withUnsafeTemporaryAllocation(byteCount: 64 << 10, alignment: 16) { buffer throws(Errno) in
            var offset = offset
            var left = count ?? Int.max
            while left > 0 {
                let read = try fd.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(buffer.count, left)]))
                if read == 0 { return }
                try body(UnsafeRawBufferPointer(rebasing: buffer[0..<read]))
                offset += read
                left -= read
            }
        }
    }

    /// Makes the whole download at `path` (open as `fd`, `size` bytes of `kind`, with the response's
    /// validators) the valid result of `url`: it takes the first free slot of its size, or, when it meets
    /// its own bytes in a slot on the way, `path` becomes a name of that blob (its own bytes go); then the
    /// URL's record names the blob (see BlobSlots.swift). `sha256` and `quickDigest`: the digests of those
    /// bytes when the caller has them (hashed as written, a QuickDigest up to `hashedAtOnce`, a SHA-256 where
    /// a checksum was checked); otherwise they are computed only where they must be. The caller holds the URL's lock. Returns the blob's name;
    /// nil when nothing was recorded (the URL is then simply not shared).
    @discardableResult
    public func publish(_ path: String, fd: FileDescriptor, url: String, size: Int, kind: String?,
                        etag: String? = nil, modified: String? = nil, sha256: String? = nil,
                        quickDigest: String? = nil) -> String? {
        let name: String
        do { name = try storeOnce(path, fd: fd, size: size, sha256: sha256, quickDigest: quickDigest) } catch {
            spool.log("cannot store the blob of \(url): \(error)")
            return nil
        }
        do {
            try writeURLRecord(URLRecord(url: url, blob: name, size: size, kind: kind, etag: etag, modified: modified))
        } catch {
            spool.log("cannot record the result of \(url): \(error)")
            return nil
        }
        // A removal that saw the blob with no other name just before the link may collect it now: the
        // record then names nothing, which readers see (they check the blob), and the URL's next transfer
        // replaces it. Not looked for here: it would cost every job a stat for that rare race.
        return name
    }

    /// Stores the whole download at `path` (open as `fd`) once, as `publish` does, with no URL record: the
    /// bytes of a job whose URL no other job names (FarmLists' URLSharing.swift). Nil when not stored.
    @discardableResult
    public func storeBytes(_ path: String, fd: FileDescriptor, size: Int, sha256: String? = nil,
                           quickDigest: String? = nil) -> String? {
        do { return try storeOnce(path, fd: fd, size: size, sha256: sha256, quickDigest: quickDigest) } catch {
            spool.log("cannot store the blob of \(path.dropFirst(spool.root.count + 1)): \(error)")
            return nil
        }
    }

    /// Gives the bytes at `path` (open as `fd`, `size` of them) a slot in blobs/, or makes `path` a name of
    /// the blob that holds them already (the walk of BlobSlots.swift). Returns the blob's name. A slot
    /// whose occupant keeps changing under the walk (collected, replaced: `raced`) is tried a few times,
    /// then the bytes are simply not stored once (thrown: the caller records nothing).
    func storeOnce(_ path: String, fd: FileDescriptor, size: Int, sha256: String? = nil,
                   quickDigest: String? = nil) throws(Errno) -> String {
        var mine = Fingerprint(fd: fd, size: size, digest: sha256, quickDigest: quickDigest)
        let first = Fingerprint.firstLevel(size)
        var level = first
        for _ in 0..<8 {
            let name = try mine.slot(level)
            switch try take(name, for: path, &mine, lastLevel: level == Fingerprint.lastLevel) {
            case .taken:
                // What it was compared by, once it went past another file: the next of its size needs no hash of it.
                if level > first { mine.keep() }
                return name
            case .occupiedByOthers: level += 1
            case .raced: continue
            }
        }
        throw .resourceTemporarilyUnavailable
    }

    private enum Taking { case taken, occupiedByOthers, raced }

    /// One slot of the walk: `path` linked into it, made a name of its equal occupant (`taken`), or not
    /// (other bytes are there). In the last level (named by the SHA-256) an occupant of the right size is
    /// equal by its name; one of another size is bytes a power loss cut, which these replace.
    private func take(_ name: String, for path: String, _ mine: inout Fingerprint, lastLevel: Bool)
        throws(Errno) -> Taking {
        let blob = blobPath(name)
        do {
            try FileSystem.link(path, blob)
            return .taken
        } catch where error == .fileExists {}
        guard let me = try? FileSystem.lstat(path) else { throw .noSuchFileOrDirectory }
        guard let occupant = try? FileSystem.lstat(blob) else { return .raced }  // collected meanwhile
        if occupant.inode == me.inode && occupant.deviceID == me.deviceID { return .taken }
        if Int(occupant.size) != mine.size {
            if !lastLevel {
                // Bytes a power loss cut (not a marker: not empty) that no output uses: collected as fsck's repair
                // does, then the slot is looked at again. Passed over, it would stay for good, named by nothing
                // (a completion whose data and outcome the disk lost while it kept the blob's link, then redone:
                // bin/crashstates found fsck's "a stored blob that no output uses" after the redo). Not replaced
                // as in the last level: a slot of level 1 or 2 is not named by its bytes, and two downloads of
                // its size replacing it at once would each take it.
                if occupant.size > 0 && occupant.linkCount == 1 {
                    collectIfUnused(name, inode: occupant.inode)
                    return .raced
                }
                return .occupiedByOthers
            }
            let scratch = spool.scratch.path("blob")
            defer { try? FileSystem.unlink(scratch) }
            try FileSystem.link(path, scratch)
            try FileSystem.rename(scratch, blob)
            return .taken
        }
        if !lastLevel {
            guard let fd = try? FileDescriptor.open(blob, .readOnly) else { return .raced }
            defer { fd.closeQuietly() }
            var theirs = Fingerprint(fd: fd, size: Int(occupant.size), keepsAttributes: true)
            guard try mine.equals(&theirs) else { return .occupiedByOthers }
        }
        // Equal bytes: this copy gives way to a name of the stored one, if that one is still the occupant
        // (in a slot of level 1 or 2 a marker may have replaced it: then the walk looks at the slot again).
        let scratch = spool.scratch.path("blob")
        guard (try? FileSystem.link(blob, scratch)) != nil else { return .raced }
        if !lastLevel, (try? FileSystem.lstat(scratch)).map({ $0.inode != occupant.inode }) ?? true {
            try? FileSystem.unlink(scratch)
            return .raced
        }
        do { try FileSystem.rename(scratch, path) } catch {
            try? FileSystem.unlink(scratch)
            throw error
        }
        return .taken
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
    /// URL, when the caller knows it) if it names that blob (see Dedup.swift). `lost`: the disk may have
    /// kept fewer of the output's bytes than it was given (a redo after a power cut), so its blob is also
    /// looked for by its inode.
    public func removeOutput(_ path: String, url: String? = nil, lost: Bool = false) throws(Errno) {
        guard let (name, inode) = blob(ofOutput: path) ?? (lost ? blob(sharingInodeOf: path, url: url) : nil) else {
            try FileSystem.removeTree(path)
            return
        }
        // The blob goes before its last other name, the output: a removal killed (or a power cut) in
        // between leaves the output a file of its own, which the removal taken up again deletes whole,
        // never a blob that no output names (fsck's finding).
        if let blob = try? FileSystem.lstat(blobPath(name)), blob.inode == inode, blob.linkCount == 2 {
            collectBlob(name, url: url)
            Failpoint.hit("remove.blob-collected")
        }
        try FileSystem.removeTree(path)
        collectIfUnused(name, inode: inode, url: url)
    }

    /// The blob whose name the output at `path` is, and its inode: what `collectIfUnused` takes once
    /// the output was replaced by another file; nil when it is none. The output's slots are looked at in
    /// the order a download takes them, hashing only to name the next: only an output with another name
    /// gets here, and removals are rare, so nothing is kept on every output to spare it.
    package func blob(ofOutput path: String) -> (name: String, inode: Inode)? {
        guard let st = try? FileSystem.lstat(path), st.type == .regular, st.linkCount > 1,
              let fd = try? FileDescriptor.open(path, .readOnly) else { return nil }
        defer { fd.closeQuietly() }
        var fingerprint = Fingerprint(fd: fd, size: Int(st.size))
        for level in Fingerprint.firstLevel(Int(st.size))...Fingerprint.lastLevel {
            guard let name = try? fingerprint.slot(level) else { return nil }
            if let blob = try? FileSystem.lstat(blobPath(name)), blob.inode == st.inode, blob.deviceID == st.deviceID {
                return (name, st.inode)
            }
        }
        return nil
    }

    /// The blob that is the output at `path` (the same inode) when the output's bytes no longer name it:
    /// a power cut kept the names a download was given but not all its bytes, and the redo deletes the
    /// output. Found by its URL's record, else by a look through blobs/ (only such outputs are looked
    /// for so: every other output that is a blob's name is found by its bytes).
    func blob(sharingInodeOf path: String, url: String?) -> (name: String, inode: Inode)? {
        guard let st = try? FileSystem.lstat(path), st.type == .regular, st.linkCount > 1 else { return nil }
        func isOutput(_ name: String) -> Bool {
            guard let blob = try? FileSystem.lstat(blobPath(name)) else { return false }
            return blob.inode == st.inode && blob.deviceID == st.deviceID
        }
        if let url, let record = urlRecord(key: Self.urlKey(url)), isOutput(record.blob) { return (record.blob, st.inode) }
        let name = FileSystem.names(spool.blobs).first { Self.isBlobName($0) && isOutput($0) }
        return name.map { ($0, st.inode) }
    }

    /// Collects blob `name` (with the record of `url`, if it names it) when its only name left is
    /// blobs/ and it is still the file `inode`.
    package func collectIfUnused(_ name: String, inode: Inode, url: String? = nil) {
        guard let st = try? FileSystem.lstat(blobPath(name)), st.inode == inode, st.linkCount == 1 else { return }
        collectBlob(name, url: url)
    }

    /// Deletes blob `name`, and the record of `url` when it names that blob; a slot of level 1 or 2 whose
    /// occupant was compared with other bytes keeps a marker (see BlobSlots.swift). Other records that name it name nothing from then on (readers check
    /// the blob's size), and fsck deletes them. A worker that links the blob at the same moment keeps its
    /// bytes (a link made before the unlink holds them); one that comes after finds no blob and downloads.
    func collectBlob(_ name: String, url: String? = nil) {
        if let url, let record = urlRecord(key: Self.urlKey(url)), record.url == url, record.blob == name {
            try? FileSystem.unlink(urlRecordPath(key: Self.urlKey(url)))
        }
        guard let size = Self.slotSize(name), size > 0, Fingerprint.wasCompared(blobPath(name)) else {
            try? FileSystem.unlink(blobPath(name))
            return
        }
        let marker = spool.scratch.path("marker")
        do {
            try FileDescriptor.open(marker, .writeOnly, options: [.create, .exclusiveCreate], permissions: 0o600)
                .closeQuietly()
            try FileSystem.rename(marker, blobPath(name))
        } catch {
            try? FileSystem.unlink(marker)
        }
    }
}
