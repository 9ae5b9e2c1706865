import FarmSystem
import SystemPackage

extension Spool {
    /// Adds `jobs` to the queue and publishes `lists`, atomically (PROTOCOL.md, "Add"):
    /// after a crash either none of it is visible, or all the jobs are and recovery finishes
    /// publishing the lists. Returns the batch name.
    @discardableResult @inlinable
    public func enqueue(_ jobs: some Sequence<NewJob>, lists: [ListRecordFile]) throws(SpoolError) -> String {
        // Inlined, so the caller's sequence is iterated by code specialized for its type: here it
        // would be generic, and each element would cost metadata lookups (a tenth of `farm add`).
        var iterator = jobs.makeIterator()
        return try enqueue(next: { iterator.next() }, lists: lists)
    }

    /// `tables`: whether the jobs' records go to new resource tables published with the lists (an add),
    /// or are already in their lists' tables (a page of a paged list, see `appendPage`).
    @usableFromInline
    package func enqueue(next: () -> NewJob?, lists: [ListRecordFile], tables writesTables: Bool = true) throws(SpoolError)
        -> String {
        let batch = BatchName.fresh()
        let stage = tmp + "/" + Self.stagePrefix + batch
        // The lock tells recovery the stage still has a live writer; it dies with this process. Locked
        // under a scratch name, then renamed to its own: a lock file is never seen unlocked while its
        // writer lives, and the stage is made after it, so it is never seen without it (`isStageLive`).
        let lock: FileDescriptor
        let scratch = scratch.path("lock")
        do {
            lock = try FileDescriptor.open(scratch, .readWrite, options: [.create, .exclusiveCreate], permissions: 0o600)
        } catch {
            throw SpoolError(.io, "cannot stage a batch in \(tmp)", cause: error)
        }
        // Kept while the batch is committed with its lists unpublished: a batch holds pending lists only while
        // its lock file is there (`batchesBeingAdded`), and recovery publishes them before it removes it.
        var committed = false
        defer {
            if !committed { try? FileSystem.unlink(stage + Self.stageLockSuffix) }
            lock.closeQuietly()
        }
        do {
            _ = try lock.tryLock()
            try FileSystem.rename(scratch, stage + Self.stageLockSuffix)
            try FileSystem.mkdir(stage, mode: 0o700)
        } catch {
            try? FileSystem.unlink(scratch)
            throw SpoolError(.io, "cannot stage a batch in \(tmp)", cause: error)
        }

        let writer = ShardWriter()
        do {
            if writesTables || !lists.isEmpty { try FileSystem.mkdir(stage + "/.lists") }
            var tables = ResourceTables(path: { stage + "/.lists/" + $0 + ListFiles.resourceTableSuffix })
            defer { tables.close() }
            var shard: [(name: String, bytes: [UInt8])] = []
            var n = 0
            while let job = next() {
                let record = job.record.encoded()
                // An add's job file is empty: its record is its line of the table staged and synced with it
                // (`Spool.jobRecord(atPath:)`), one mknod instead of an open, a write and a close, and no data
                // block for the sync. A page's jobs keep theirs: its table lines were written before.
                if writesTables {
                    shard.append((job.name.raw, []))
                    try tables.append(record, for: job.name)
                } else {
                    shard.append((job.name.raw, record))
                }
                Failpoint.hit("add.staging")
                n += 1
                if n % Self.shardSize == 0 {
                    try stageShard(&shard, number: n / Self.shardSize - 1, of: stage, writer)
                }
            }
            if !shard.isEmpty { try stageShard(&shard, number: n / Self.shardSize, of: stage, writer) }
            try writer.finish()
            try tables.finish()
            for list in lists {
                if let firstPage = list.firstPage {
                    // Its pages are edits of it: an (empty) order from the start, as an edited list has.
                    try FileSystem.createFile(stage + "/.lists/" + list.id + ListFiles.pageLogSuffix, firstPage)
                    try FileSystem.createFile(stage + "/.lists/" + list.id + ListFiles.resourceTableSuffix, [])
                    try FileSystem.createFile(stage + "/.lists/" + list.id + ListFiles.orderSuffix, [])
                }
                if let owned = list.owned {
                    try FileSystem.createFile(stage + "/.lists/" + list.id + ListFiles.ownedSuffix, owned)
                }
                if let request = list.request {
                    try FileSystem.createFile(stage + "/.lists/" + list.id + ListFiles.requestSuffix, request, mode: 0o600)
                }
                try FileSystem.createFile(stage + "/.lists/" + list.id + ListFiles.recordSuffix, list.bytes)
            }
            Failpoint.hit("add.staged")
            try FileSystem.syncFileSystem(stage)
        } catch {
            try? writer.finish()  // no thread may still be creating files in the stage
            try? FileSystem.removeTree(stage)
            throw SpoolError(.io, "cannot write the jobs of a new batch", cause: error)
        }

        do {
            try FileSystem.renameNoReplace(stage, queue + "/" + batch, fallback: .rename)  // a fresh name
            committed = true
            try FileSystem.syncDirectory(queue)
        } catch {
            if !committed { try? FileSystem.removeTree(stage) }
            throw SpoolError(.io, "cannot publish a new batch into \(queue)", cause: error)
        }
        Failpoint.hit("add.committed")
        try publishLists(ofBatch: batch)
        committed = false  // published: the lock file may go
        control.ringBell()
        return batch
    }

    /// Makes shard `number` of `stage` and hands `files` to `writer` to create there; `files` is
    /// left empty for the next shard.
    private func stageShard(_ files: inout [(name: String, bytes: [UInt8])], number: Int, of stage: String,
                       _ writer: ShardWriter) throws(Errno) {
        let directory = stage + "/" + BatchName.shard(number)
        try FileSystem.mkdir(directory)
        try writer.write(files, in: directory)
        files = []
        files.reserveCapacity(Self.shardSize)
    }

    /// Moves a committed batch's list records into lists/. Idempotent: recovery calls it again for
    /// a batch whose coordinator died half-way.
    package func publishLists(ofBatch batch: String) throws(SpoolError) {
        let pending = lists.pending(ofBatch: batch)
        do {
            let names: [String]
            do { names = try FileSystem.listDirectory(pending) } catch where error == .noSuchFileOrDirectory { return }
            // A list's resource table before its record: whoever sees the record can read the table.
            let isRecord = { (name: String) in name.hasSuffix(ListFiles.recordSuffix) }
            for name in names.sorted(by: { !isRecord($0) && isRecord($1) }) {
                do {
                    try FileSystem.rename(pending + "/" + name, self.lists.folder + "/" + name)
                } catch where error == .noSuchFileOrDirectory {}  // another recoverer moved it
                Failpoint.hit("add.published-list")
            }
            try FileSystem.syncDirectory(self.lists.folder)
            do { try FileSystem.rmdir(pending) } catch where error == .noSuchFileOrDirectory {}
        } catch {
            throw SpoolError(.io, "cannot publish the lists of batch \(batch)", cause: error)
        }
    }

    /// The batches whose stage's lock file is in tmp/: being staged, committed with lists not yet published,
    /// or left so by a dead add (until recovery publishes them). No other batch holds pending lists.
    package func batchesBeingAdded() -> [String] {
        FileSystem.names(tmp).compactMap { name in
            guard name.hasPrefix(Self.stagePrefix), name.hasSuffix(Self.stageLockSuffix) else { return nil }
            return String(name.dropFirst(Self.stagePrefix.count).dropLast(Self.stageLockSuffix.count))
        }
    }

    /// A batch being staged is `tmp/stage-<batch>`.
    package static let stagePrefix = "stage-"
    /// `tmp/stage-<batch>.lock`, flock'ed by the coordinator writing the stage: a file, because a lock
    /// on a directory is not seen by other mounts of a shared file system (GlusterFS).
    static let stageLockSuffix = ".lock"

    /// Whether the add staging `tmp/<name>` (a stage, or its lock file) still has a live writer: one
    /// that holds the flock on its lock file. A stage without a lock file has none: the lock file is
    /// made before the stage and removed after it is gone.
    package func isStageLive(_ name: String) -> Bool {
        let base = name.hasSuffix(Self.stageLockSuffix) ? String(name.dropLast(Self.stageLockSuffix.count)) : name
        guard let fd = try? FileDescriptor.open(tmp + "/" + base + Self.stageLockSuffix, .readOnly) else { return false }
        defer { fd.closeQuietly() }
        return (try? fd.tryLock(shared: true)) != true
    }
}
