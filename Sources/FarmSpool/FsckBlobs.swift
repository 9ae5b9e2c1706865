import FarmSystem
import SystemPackage

// The stored results of fsck (see Fsck.swift and "Once" in the protocol): blobs no output uses, records
// whose blob is gone, lock files nobody holds with no partial download to resume, and the URL lists an
// older farm kept beside its blobs.
extension FsckRun {
    func checkBlobs() throws(SpoolError) {
        // The blobs found unused: the records that name them go with them (collecting a blob deletes only
        // the record of a URL its caller knows, and here none is known).
        var unused: Set<String> = []
        for name in try names(spool.blobs) {
            let path = spool.blobs + "/" + name
            if Spool.isDigest(name) {
                guard let st = try? FileSystem.lstat(path), st.type == .regular else {
                    foreign(path, "not a stored blob")
                    continue
                }
                guard st.linkCount == 1 else { continue }
                unused.insert(name)
                found(.blob, path, "a stored blob that no output uses") { [spool] () throws(SpoolError) in
                    spool.collectIfUnused(name, inode: st.inode)
                    return FileSystem.exists(path) ? .skipped("it is used again") : .made
                }
            } else if name.hasSuffix(Spool.oldBlobURLsSuffix),
                      Spool.isDigest(name.dropLast(Spool.oldBlobURLsSuffix.count)) {
                found(.blob, path, "the URL list of a blob, which this farm no longer keeps") { () throws(SpoolError) in
                    try? FileSystem.unlink(path)
                    return .made
                }
            } else {
                foreign(path, "not a stored blob")
            }
        }
        for name in try names(spool.urls) {
            let path = spool.urls + "/" + name
            if Spool.isDigest(name) {
                let record = spool.urlRecord(key: name)
                let isUnused = record.map { unused.contains($0.blob) } ?? false
                guard record.map({ isUnused || !FileSystem.exists(spool.blobPath($0.blob)) }) ?? isSettled(path)
                else { continue }
                let detail = record == nil ? "a URL record that does not read"
                    : isUnused ? "a URL record of a stored blob that no output uses" : "a URL record whose blob is gone"
                // Repaired after the blobs (found first): a record of an unused blob goes once the blob went.
                found(.blob, path, detail) {
                    [spool] () throws(SpoolError) in
                    if let now = spool.urlRecord(key: name), FileSystem.exists(spool.blobPath(now.blob)) {
                        return .skipped("it names a blob again")
                    }
                    try? FileSystem.unlink(path)
                    return .made
                }
            } else if name.hasSuffix(Spool.urlLockSuffix), Spool.isDigest(name.dropLast(Spool.urlLockSuffix.count)) {
                guard isUnusedLock(path) else { continue }
                found(.blob, path, "the lock of a URL's transfer that nobody holds, with no partial download") {
                    [self] () throws(SpoolError) in
                    guard let fd = try? FileDescriptor.open(path, .readOnly) else { return .made }
                    defer { fd.closeQuietly() }
                    guard (try? fd.tryLock()) == true, hasNothingToResume(fd) else { return .skipped("it is in use") }
                    try? FileSystem.unlink(path)
                    return .made
                }
            } else {
                foreign(path, "not a URL record")
            }
        }
    }

    /// Whether the file at `path` is older than a moment: a URL record is written in place when it is
    /// new, so one that does not read may be one its writer has just made.
    private func isSettled(_ path: String) -> Bool {
        (try? FileSystem.lstat(path)).map { now - $0.changeTime >= Self.stageAge } ?? false
    }

    /// Whether the URL lock file at `path` is one nobody holds, older than a moment, whose holder's
    /// partial download is gone (a new holder would have nothing to adopt).
    private func isUnusedLock(_ path: String) -> Bool {
        guard let st = try? FileSystem.lstat(path), now - st.changeTime >= Self.stageAge,
              let fd = try? FileDescriptor.open(path, .readOnly) else { return false }
        defer { fd.closeQuietly() }
        return (try? fd.tryLock(shared: true)) == true && hasNothingToResume(fd)
    }

    /// Whether the lock file open as `fd` names no claim, or one whose partial download is gone.
    private func hasNothingToResume(_ fd: FileDescriptor) -> Bool {
        guard let holder = (try? fd.readAll(limit: 512)).flatMap({ ActiveName(String(decoding: $0, as: UTF8.self)) })
        else { return true }
        return !FileSystem.exists(spool.partialPath(holder.job))
    }
}
