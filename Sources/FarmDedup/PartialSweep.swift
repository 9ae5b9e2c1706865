import FarmSpool
import FarmSystem
import SystemPackage

extension Dedup {
    /// Removes the URL partials nobody can want and nobody writes (unlocked): empty ones (nothing to
    /// resume: a taker makes the file again), those of a URL whose result is stored, and those of a URL
    /// no unfinished job names. The last are what a removed resource leaves when its transfer held the
    /// partial as it was removed and died before it saw (a power cut, a kill): nothing else would ever
    /// delete them. `farm stop` calls it once every farm process of this host is gone, and the recovery
    /// after a reboot. A job claimed while it looks finds the file gone or takes it by its lock and inode
    /// (URLPartial.take): at worst its transfer starts from the first byte. Returns how many it removed.
    @discardableResult
    public func sweepURLPartials() -> Int {
        var removed = 0
        let names = FileSystem.names(spool.partial).filter { $0.hasPrefix(Self.urlPartialPrefix) }
        if names.isEmpty { return 0 }
        // Read once, and only when some partial needs it; nil when unknown.
        lazy var wanted = unfinishedURLKeys()
        for name in names {
            let key = String(name.dropFirst(Self.urlPartialPrefix.count))
            guard Self.isDigest(key), let st = try? FileSystem.lstat(spool.path(.partial, name)) else { continue }
            let stored = urlRecord(key: key).map(holdsBytes) ?? false
            // Kept while some unfinished job may resume it, or when that is unknown (a table that does not read).
            if st.size != 0 && !stored {
                guard let keys = wanted, !keys.contains(key) else { continue }
            }
            if FileSystem.unlinkUnlessLocked(spool.path(.partial, name)) { removed += 1 }
        }
        return removed
    }

    /// The keys of the URLs of every job queued or claimed, read from their lists' tables; nil when a
    /// table with such a job does not read (nothing is known).
    func unfinishedURLKeys() -> Set<String>? {
        var unfinished: [String: [Int]] = [:]
        spool.forEachQueued { _, name in
            if let job = JobName(name) { unfinished[job.list, default: []].append(job.index) }
        }
        for claim in spool.activeJobs() { unfinished[claim.job.list, default: []].append(claim.job.index) }
        var keys: Set<String> = []
        for (list, indexes) in unfinished {
            guard let records = spool.lists.resources(ofList: list) else { return nil }
            for index in indexes where index < records.count { keys.insert(Self.urlKey(records[index].url)) }
        }
        return keys
    }

    /// Deletes the stored blobs whose bytes the disk did not keep though it kept their names, and the URL
    /// records that name them: what a power cut leaves when it kept a download's link into blobs/ and its
    /// URL's record but not all its bytes, nor the store after them (bin/crashstates found it, fsck's "a URL
    /// record whose blob is gone" after the recovery). Such a blob's other name is still the URL's partial,
    /// which no one may write while it names stored bytes: once the blob and its record are gone, the
    /// partial is a file of its own again, cut back to what the disk kept and resumed. Only the recovery
    /// after a reboot calls it, before any worker runs: until then a partial that is a blob's name has the
    /// bytes its record says. Returns how many it deleted.
    @discardableResult
    public func collectBlobsOfLostDownloads() -> Int {
        var collected = 0
        for name in FileSystem.names(spool.partial) where name.hasPrefix(Self.urlPartialPrefix) {
            let key = String(name.dropFirst(Self.urlPartialPrefix.count))
            let path = spool.path(.partial, name)
            guard Self.isDigest(key), let st = try? FileSystem.lstat(path), st.isRegularFile, st.linkCount > 1,
                  let record = urlRecord(key: key),
                  let blob = try? FileSystem.lstat(blobPath(record.blob)), blob.inode == st.inode,
                  blob.deviceID == st.deviceID,
                  Int(st.size) != record.size || (try? FileSystem.dataEnd(path)) != record.size else { continue }
            collectBlob(record.blob, url: record.url)
            collected += 1
        }
        return collected
    }

    /// Deletes the stored blobs no output uses (their only name is in blobs/), and the URL records that name
    /// them: what a power cut leaves when it kept a download's link into blobs/ (and maybe its URL's record)
    /// but not its bytes, whose empty partial `sweepURLPartials` then removed (bin/crashstates found it,
    /// fsck's "a stored blob that no output uses"). The recovery after a reboot calls it, before any worker
    /// runs; a blob being linked at the same moment is kept or found gone as `collectIfUnused` says.
    /// Returns how many it deleted.
    @discardableResult
    public func collectUnusedBlobs() -> Int {
        var unused: [String: Inode] = [:]
        for name in FileSystem.names(spool.blobs) where Self.isBlobName(name) {
            guard let st = try? FileSystem.lstat(blobPath(name)), st.isRegularFile, st.linkCount == 1,
                  !Self.isMarker(name, st) else { continue }
            unused[name] = st.inode
        }
        if unused.isEmpty { return 0 }
        var records: [String: [String]] = [:]  // blob -> the URL records' keys that name it
        for key in FileSystem.names(spool.urls) where Self.isDigest(key) {
            if let record = urlRecord(key: key), unused[record.blob] != nil { records[record.blob, default: []].append(key) }
        }
        var collected = 0
        for (name, inode) in unused {
            collectIfUnused(name, inode: inode)
            guard !FileSystem.exists(blobPath(name)) else { continue }
            collected += 1
            for key in records[name] ?? [] { try? FileSystem.unlink(urlRecordPath(key: key)) }
        }
        return collected
    }
}
