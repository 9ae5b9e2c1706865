import FarmDesired
import FarmJSON
import FarmLists
import FarmSpool
import FarmSystem
import FarmTransfer

// `farm sync LIST` (SPEC §7) brings a list to its source, in steps that are each atomic, so that a sync
// killed at any point (SIGKILL included) and run again ends where one uninterrupted sync would have:
//
// 1. What a killed sync left is finished or dropped: the stages of tmp/ whose sync is gone, and old
//    outputs a done resource's record no longer names (killed between its record and its deletions).
// 2. The source is read again whole (every page of a paged one) before anything changes: a source that
//    cannot be read changes nothing.
// 3. The list's membership is brought to the source by the list edits of `farm item` (ListEdit.swift),
//    each one committed on its own: ids gone are removed (their jobs end, their outputs go), ids whose
//    URL changed are removed and added again at the same position with the same id, new ids are added
//    and queued at their position in the source. A rerun compares again and does only what is left.
// 4. Every done resource the edits did not touch is revalidated with a conditional GET (see
//    `Revalidation`): a 304 touches nothing; a 200's outputs are made aside and put in place of the old
//    ones by `Spool.replaceOutputs`, whose record carries the new validators. Killed before that record,
//    the old validators make the rerun fetch it again.

/// One list's sync: what it read, did and counted. Used by one thread (the revalidation runs its own).
public struct ListSync {
    public let spool: Spool
    public let id: String
    /// Told, now and then, how many resources have been revalidated out of how many.
    public var progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    /// Conditional GETs at once (each over its own kept-alive connection).
    public var concurrency = 6

    public init(spool: Spool, id: String) {
        self.spool = spool
        self.id = id
    }

    /// Syncs the list; throws `SyncFailure` (which the caller prefixes with the list's name) when the
    /// list cannot be synced, having changed nothing since what it last read.
    public func run() throws(SyncFailure) -> SyncReport {
        guard let record = spool.list(id) else { throw SyncFailure("it is no longer in the spool") }
        if record.paged != nil, Lists(spool).pageState(ofList: id) != nil,
           FileSystem.exists(Lists(spool).pageLogPath(ofList: id)) {
            throw SyncFailure("its pages are still being followed; sync it once they are all in", refused: true)
        }
        Lists(spool).removeDeadSyncStages()
        do { try Lists(spool).dropUnreferencedOutputs(ofList: id) } catch { throw SyncFailure("\(error)") }
        // Fetched as the farm's workers fetch: with its CA file and size limit.
        let desired = spool.control.desired()
        let limits = Revalidation.Limits(caFile: desired.caFile ?? DownloadRequest.caFileFromEnvironment,
                                         maxSize: desired.maxSize)
        // A mirrored site's source is its crawl, which no manifest holds: its resources are revalidated where
        // they are (a changed page or image is fetched again), and links a changed page gained are not
        // followed, as `wget -N` without `-r` would not.
        let source = record.request?.recursive != nil
            ? SourceResources(records: members().map(\.record), byID: false)
            : try SourceResources.read(record, spool: spool, caFile: limits.caFile,
                                       request: RequestOptions.decoded(spool.lists.requestOptions(ofList: id)))
        var report = SyncReport(list: record.name)
        let touched = try edit(to: source, report: &report)
        var revalidation = Revalidation(spool: spool, concurrency: concurrency, limits: limits, progress: progress)
        let (changed, unchanged) = revalidation.run(list: id, skipping: touched, keys: source.keys)
        report.changed += changed
        report.unchanged = unchanged
        return report
    }

    /// Step 3: the list's resources become the source's. Returns the ids (keys) it added or fetched again.
    private func edit(to source: SourceResources, report: inout SyncReport) throws(SyncFailure) -> Set<String> {
        let wanted = source.records
        let wantedKeys = source.keys(wanted)
        var current = members()
        var wantedIndex: [String: Int] = [:]
        for (index, key) in wantedKeys.enumerated() where wantedIndex[key] == nil {
            wantedIndex[key] = index
        }
        // Gone from the source, or there under another URL: removed (the latter added again below).
        var refetch: Set<String> = []
        for (member, key) in zip(current, source.keys(current.map(\.record))) {
            guard let index = wantedIndex[key] else {
                try call { () throws(SpoolError) in
                    _ = try Lists(spool).removeResource(id: member.record.id, fromList: id)
                }
                report.removed += 1
                continue
            }
            if source.byID && wanted[index].url != member.record.url {
                try call { () throws(SpoolError) in
                    _ = try Lists(spool).removeResource(id: member.record.id, fromList: id)
                }
                refetch.insert(key)
            }
        }
        current = members()
        var present = Set(source.keys(current.map(\.record)))
        var count = current.count
        var touched: Set<String> = []
        for (index, var record) in wanted.enumerated() where !present.contains(wantedKeys[index]) {
            let key = wantedKeys[index]
            present.insert(key)
            touched.insert(key)
            if !source.byID { record.id = "" }
            // Where the source has it: the list's order once every addition is in (the others keep theirs).
            let position = min(index, count)
            try call { () throws(SpoolError) in _ = try Lists(spool).addResource(record, toList: id, at: position) }
            count += 1
            if refetch.contains(key) { report.changed += 1 } else { report.added += 1 }
        }
        return touched
    }

    /// The list's resources now, in order.
    private func members() -> [(number: Int, record: JobRecord)] {
        guard let record = spool.list(id), let table = spool.lists.resources(ofList: id) else { return [] }
        return Lists(spool).order(ofList: id, total: record.total).numbers.compactMap { number in
            number < table.count ? (number, table[number]) : nil
        }
    }

    private func call<T>(_ body: () throws(SpoolError) -> T) throws(SyncFailure) -> T {
        do { return try body() } catch { throw SyncFailure("\(error)") }
    }
}

/// What one list's sync did: `Books: added 3, removed 1, changed 2, unchanged 40`. `unchanged` counts the
/// resources in both the list and its source that did not change (queued, active and failed ones too).
/// `farm sync --json` prints it (every member written, every one required to read it back). A value.
public struct SyncReport: Sendable, Equatable, CustomStringConvertible, JSONRecord {
    public var list: String
    public var added = 0
    public var removed = 0
    public var changed = 0
    public var unchanged = 0

    public init(list: String) {
        self.list = list
    }

    public var description: String {
        "\(list): added \(added), removed \(removed), changed \(changed), unchanged \(unchanged)"
    }
}

/// Why a list could not be synced, in a few words the caller puts after the list's name; `refused` when
/// the list is not in a state to be synced (its pages still followed), which the CLI exits 2 for.
public struct SyncFailure: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public let refused: Bool

    public init(_ reason: String, refused: Bool = false) {
        self.reason = reason
        self.refused = refused
    }

    public var description: String { reason }
}
