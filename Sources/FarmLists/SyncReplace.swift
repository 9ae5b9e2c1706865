import FarmDedup
import FarmJSON
import FarmSpool
import FarmSystem
import SystemPackage

/// A done resource as `farm sync` found it before revalidating it: its job, its outcome record, and what
/// tells its job file from any later one (a reload sends the file back to the queue; done again, it has
/// another record). A value.
public struct DoneResource: Sendable {
    public let job: JobName
    public let record: Sidecar
    let recordBytes: [UInt8]
    let inode: UInt64
}

// Sync's replacement of a changed resource (see "Sync's replacement" in Lists.swift). The new bytes and the outputs
// made from them wait in a stage of tmp/ under the names they will have in files/<list>/; then, under the
// list's edit lock and only if the job is still the same done file with the same record, each is renamed
// over the old output (a folder, an unpacked ZIP's, is exchanged with the old one in one step), the
// record is replaced, and the old outputs nothing replaced (the kind changed) are deleted. Readers see the
// old image until the new one is in place. A sync killed before the record is replaced leaves the old
// validators, so the next sync fetches the resource again and finishes; killed after it, the old outputs
// left are found by `dropUnreferencedOutputs`, which the next sync runs first.
extension Lists {
    static let syncStagePrefix = "sync"

    /// The done resource `job` with its record; nil when it is not done or has no record.
    public func doneResource(_ job: JobName) -> DoneResource? {
        let path = spool.finishedPath(job, .done)
        guard let st = try? FileSystem.stat(path), let bytes = spool.sidecars.lastRecord(job, finished: [.done]),
              let record = JSON.decode(Sidecar.self, from: bytes) else { return nil }
        return DoneResource(job: job, record: record, recordBytes: bytes, inode: UInt64(st.inode.rawValue))
    }

    /// A fresh, empty stage for the new outputs of one changed resource: `tmp/sync-<pid>.<host tag>-<nonce>`.
    public func makeSyncStage() throws(SpoolError) -> String {
        let path = spool.scratch.path(Self.syncStagePrefix)
        do { try FileSystem.mkdir(path, mode: 0o700) } catch {
            throw SpoolError(.io, "cannot make a stage in \(spool.tmp)", cause: error)
        }
        return path
    }

    /// Removes the stages of syncs whose process is gone (killed half-way); returns how many.
    @discardableResult
    public func removeDeadSyncStages() -> Int {
        var removed = 0
        for name in FileSystem.names(spool.tmp) where name.hasPrefix(Self.syncStagePrefix + "-") {
            guard ScratchFiles.writer(ofName: name)?.isGone == true else { continue }
            if (try? FileSystem.removeTree(spool.path(.tmp, name))) != nil { removed += 1 }
        }
        return removed
    }

    /// Puts the outputs in `stage` (named as in files/<list>/) in place of those of `resource`, whose URL
    /// is `url`, and `record` (which names them at their final paths) as its outcome record; the old
    /// outputs nothing replaced are deleted, and so is the stage. False, changing nothing, when the job is
    /// no longer the same done file with the same record (reloaded, removed, or replaced by another sync).
    public func replaceOutputs(of resource: DoneResource, url: String, stage: String,
                               record: Sidecar) throws(SpoolError) -> Bool {
        let job = resource.job
        defer { try? FileSystem.removeTree(stage) }
        return try lockingList(job.list) { () throws(SpoolError) -> Bool in
            guard let now = doneResource(job), now.inode == resource.inode, now.recordBytes == resource.recordBytes,
                  isMember(job) else { return false }
            let directory = spool.outputDirectory(ofList: job.list)
            // The old download may be a name of a blob (see FarmDedup's protocol): replaced, it may have been its last.
            let oldBlob = now.record.file.flatMap { Dedup(spool).blob(ofOutput: $0) }
            do {
                try FileSystem.ensureDirectory(directory)
                for entry in try FileSystem.listEntries(stage) {
                    let from = stage + "/" + entry.name, to = directory + "/" + entry.name
                    if entry.isDirectory, FileSystem.exists(to) {
                        // The old folder comes out to the stage in the same step, and goes with it.
                        try FileSystem.exchange(from, to)
                    } else {
                        try FileSystem.rename(from, to)
                    }
                }
            } catch {
                throw SpoolError(.io, "cannot put the new outputs of \(job) in place", cause: error)
            }
            Failpoint.hit("sync.renamed")
            // Its delivered file (SPEC §12) is replaced too; a delivery that fails keeps the old one.
            var record = record
            record.delivered = now.record.delivered
            if let file = record.file, let kind = record.kind {
                do {
                    record.delivered = try Deliveries(spool: spool).deliver(job, file: file, ext: kind, sha256: nil,
                                                                            old: now.record.delivered)
                } catch {
                    spool.log("sync: \(job) not delivered again: \(error)")
                }
            }
            try setDoneRecord(record, of: job)
            Failpoint.hit("sync.recorded")
            dropUnreferenced(job, record: record, url: url)
            if let oldBlob { Dedup(spool).collectIfUnused(oldBlob.name, inode: oldBlob.inode, url: url) }
            return true
        }
    }

    /// Deletes, for every done resource of list `id`, the outputs its record does not name: what a sync
    /// killed between its record and its deletions left. One read of the list's folder; each resource with
    /// some is checked again under the list's edit lock. Returns how many resources had some.
    @discardableResult
    public func dropUnreferencedOutputs(ofList id: String) throws(SpoolError) -> Int {
        let directory = spool.outputDirectory(ofList: id)
        var found: [JobName] = []
        for (index, names) in spool.outputsByIndex(ofList: id) {
            let job = JobName(list: id, index: index)
            guard let resource = doneResource(job), resource.record.file != nil else { continue }
            let named = Self.outputNames(of: resource.record, index: index, in: directory)
            if names.contains(where: { !named.contains($0) }) { found.append(job) }
        }
        guard !found.isEmpty else { return 0 }
        try lockingList(id) { () throws(SpoolError) in
            for job in found {
                if let resource = doneResource(job) {
                    let url = spool.jobURL(atPath: spool.finishedPath(job, .done))
                    dropUnreferenced(job, record: resource.record, url: url)
                }
            }
        }
        return found.count
    }

    /// Replaces the outcome record of the done job `job`: on its job file, or in progress/ where the file
    /// system keeps no attribute.
    private func setDoneRecord(_ record: Sidecar, of job: JobName) throws(SpoolError) {
        let path = spool.finishedPath(job, .done)
        do { try FileSystem.setAttribute(path, SidecarFiles.outcomeAttribute, record.encoded()) } catch {
            if error == .noSuchFileOrDirectory { throw SpoolError(.io, "\(job) left done/ during its sync") }
            try? FileSystem.removeAttribute(spool.finishedPath(job, .done), SidecarFiles.outcomeAttribute)
            try spool.sidecars.write(record, for: job)
        }
    }

    /// Deletes the outputs of `job` (whose URL is `url`) that `record` does not name (under the list's
    /// edit lock).
    private func dropUnreferenced(_ job: JobName, record: Sidecar, url: String?) {
        guard record.file != nil else { return }
        let directory = spool.outputDirectory(ofList: job.list)
        let named = Self.outputNames(of: record, index: job.index, in: directory)
        let prefix = String(job.index) + "."
        for name in FileSystem.names(directory) where name.hasPrefix(prefix) && !named.contains(name) {
            try? Dedup(spool).removeOutput(directory + "/" + name, url: url)
        }
    }

    /// The names in files/<list>/ that the outputs `record` names have: its file, its image (or the folder
    /// it is in), its thumbnail, and a ZIP's unpacked folder.
    static func outputNames(of record: Sidecar, index: Int, in directory: String) -> Set<String> {
        var names: Set<String> = []
        for path in [record.file, record.image, record.thumb].compactMap({ $0 }) where path.hasPrefix(directory + "/") {
            if let first = path.dropFirst(directory.count + 1).split(separator: "/").first { names.insert(String(first)) }
        }
        if record.kind == "zip" { names.insert(String(index) + ".unzipped") }
        return names
    }
}
