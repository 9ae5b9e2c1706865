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
        let scratch = scratchPath("lock")
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
            var tables = ResourceTables(path: { stage + "/.lists/" + $0 + Self.resourceTableSuffix })
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
                    try FileSystem.createFile(stage + "/.lists/" + list.id + Self.pageLogSuffix, firstPage)
                    try FileSystem.createFile(stage + "/.lists/" + list.id + Self.resourceTableSuffix, [])
                    try FileSystem.createFile(stage + "/.lists/" + list.id + Self.orderSuffix, [])
                }
                if let owned = list.owned {
                    try FileSystem.createFile(stage + "/.lists/" + list.id + Self.ownedSuffix, owned)
                }
                if let request = list.request {
                    try FileSystem.createFile(stage + "/.lists/" + list.id + Self.requestSuffix, request, mode: 0o600)
                }
                try FileSystem.createFile(stage + "/.lists/" + list.id + Self.listRecordSuffix, list.bytes)
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
        let pending = pendingLists(ofBatch: batch)
        do {
            let names: [String]
            do { names = try FileSystem.listDirectory(pending) } catch where error == .noSuchFileOrDirectory { return }
            // A list's resource table before its record: whoever sees the record can read the table.
            let isRecord = { (name: String) in name.hasSuffix(Self.listRecordSuffix) }
            for name in names.sorted(by: { !isRecord($0) && isRecord($1) }) {
                do {
                    try FileSystem.rename(pending + "/" + name, lists + "/" + name)
                } catch where error == .noSuchFileOrDirectory {}  // another recoverer moved it
                Failpoint.hit("add.published-list")
            }
            try FileSystem.syncDirectory(lists)
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

    /// Where a committed batch keeps the list records it has not published yet: `queue/<batch>/.lists`.
    package func pendingLists(ofBatch batch: String) -> String { queue + "/" + batch + "/" + Self.pendingListsName }
    /// The file of list `id` with `suffix` (its record, its resource table) in batch `batch`'s pending lists.
    package func pendingListFile(_ id: String, suffix: String, ofBatch batch: String) -> String {
        pendingLists(ofBatch: batch) + "/" + id + suffix
    }

    package static let pendingListsName = ".lists"

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

    /// `lists/<list>.json`.
    public func listRecordPath(_ id: String) -> String { lists + "/" + id + Self.listRecordSuffix }

    package static let listRecordSuffix = ".json"
    /// A list's request options with their secrets (SPEC §12), mode 0600.
    package static let requestSuffix = ".request"
    /// The jobs of a list marked own at its add, by their URL's key (FarmLists' URLSharing).
    package static let ownedSuffix = ".own"
    /// An edited list's order (FarmLists' ListOrder).
    package static let orderSuffix = ".order"
    /// A paged list's page log while it is followed, and once it is done (FarmLists' PageLog).
    package static let pageLogSuffix = ".pages"
    package static let finishedPageLogSuffix = ".paged"
    /// A list of `--convert-links` whose delivered files have their links converted (FarmLists'
    /// LinkConversion.swift): made once they all are, removed by the next delivery.
    package static let convertedSuffix = ".converted"

    /// The robots.txt of an origin a recursive list requests, its start's or one it spans to (FarmLists'
    /// HostRobots): `<list>.robots-<key of the origin>`, written whole by the worker that fetched it.
    package static let robotsInfix = ".robots-"

    /// `lists/<list>.robots-<key>`, where the list keeps `origin`'s robots.txt.
    public func robotsPath(ofList id: String, origin: String) -> String {
        var key = FNV1a()
        key.add(origin)
        return lists + "/" + id + Self.robotsInfix + key.hex
    }

    /// Whether `name` in lists/ is a list's robots.txt of an origin it spans to.
    public static func isRobotsFile(_ name: String) -> Bool {
        let parts = name.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[1].hasPrefix(robotsInfix.dropFirst()) else { return false }
        return ListID.isValid(String(parts[0])) && parts[1].dropFirst(robotsInfix.count - 1).allSatisfy(\.isHexDigit)
    }

    /// `lists/<list>.converted`.
    public func convertedMarkPath(ofList id: String) -> String { lists + "/" + id + Self.convertedSuffix }

    /// Whether `name` in lists/ is a list's mark of converted links.
    public static func isConvertedMark(_ name: String) -> Bool { isListFile(name, convertedSuffix) }

    /// Whether `name` is `<list><suffix>` for a valid list id.
    private static func isListFile(_ name: String, _ suffix: String) -> Bool {
        name.hasSuffix(suffix) && ListID.isValid(String(name.dropLast(suffix.count)))
    }

    /// The list whose record is named `name` in lists/ (`<list>.json`); nil for any other name.
    public static func listID(ofRecordName name: String) -> String? {
        guard name.hasSuffix(listRecordSuffix) else { return nil }
        let id = String(name.dropLast(listRecordSuffix.count))
        return ListID.isValid(id) ? id : nil
    }

    /// `lists/<list>.request`: what the list's requests carry, secrets included (mode 0600); absent for
    /// a list whose requests carry nothing of their own.
    public func requestPath(ofList id: String) -> String { lists + "/" + id + Self.requestSuffix }

    /// The bytes of `lists/<list>.request`; nil when the list has none (or it cannot be read).
    public func requestOptions(ofList id: String) -> [UInt8]? {
        try? FileSystem.readFile(requestPath(ofList: id))
    }

    /// Whether `name` in lists/ (or a batch's pending lists) is a list's jobs marked own.
    public static func isOwnedFile(_ name: String) -> Bool { isListFile(name, ownedSuffix) }

    /// Whether `name` in lists/ is a list's request options.
    public static func isRequestFile(_ name: String) -> Bool { isListFile(name, requestSuffix) }

    /// `lists/<list>.order`, the order of an edited list (FarmLists' ListOrder: a job number in 4 bytes
    /// at each index).
    public func orderPath(ofList id: String) -> String { lists + "/" + id + Self.orderSuffix }

    /// The raw bytes of a published list record (FarmLists' `list(_:)` decodes it).
    package func listRecord(_ id: String) -> [UInt8]? {
        try? FileSystem.readFile(listRecordPath(id))
    }
}
