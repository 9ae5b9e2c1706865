import FarmDedup
import FarmSpool
import FarmSystem
import SystemPackage

// The stored results of fsck (see SpoolCheck.swift, and Dedup.swift in FarmDedup): blobs no output uses, records
// whose blob is gone.
extension FsckRun {
    func checkBlobs() throws(SpoolError) {
        // The blobs found unused: the records that name them go with them (collecting a blob deletes only
        // the record of a URL its caller knows, and here none is known).
        var unused: Set<String> = []
        for name in try names(spool.blobs) {
            let path = spool.path(.blobs, name)
            if Dedup.isBlobName(name) {
                guard let st = try? FileSystem.lstat(path), st.type == .regular else {
                    foreign(path, "not a stored blob")
                    continue
                }
                // A marker keeps its slot taken for good (see BlobSlots.swift in FarmDedup).
                guard st.linkCount == 1, !Dedup.isMarker(name, st) else { continue }
                unused.insert(name)
                found(.blob, path, "a stored blob that no output uses") { [spool] () throws(SpoolError) in
                    Dedup(spool).collectIfUnused(name, inode: st.inode)
                    return FileSystem.exists(path) ? .skipped("it is used again") : .made
                }
            } else {
                foreign(path, "not a stored blob")
            }
        }
        for name in try names(spool.urls) {
            let path = spool.path(.urls, name)
            if Dedup.isDigest(name) {
                let record = Dedup(spool).urlRecord(key: name)
                let isUnused = record.map { unused.contains($0.blob) } ?? false
                guard record.map({ isUnused || !Dedup(spool).holdsBytes(of: $0) }) ?? isSettled(path)
                else { continue }
                let detail = record == nil ? "a URL record that does not read"
                    : isUnused ? "a URL record of a stored blob that no output uses" : "a URL record whose blob is gone"
                // Repaired after the blobs (found first): a record of an unused blob goes once the blob went.
                found(.blob, path, detail) {
                    [spool] () throws(SpoolError) in
                    if let now = Dedup(spool).urlRecord(key: name), Dedup(spool).holdsBytes(of: now) {
                        return .skipped("it names a blob again")
                    }
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
}
