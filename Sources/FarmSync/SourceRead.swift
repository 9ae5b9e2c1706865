import FarmCoordinator
import FarmLists
import FarmManifest
import FarmPages
import FarmSpool
import FarmSystem
import FarmTransfer

/// A list's source as read again by `farm sync`: its resources in the source's order, and whether they are
/// told apart by id (the source gives ids) or, without ids, by URL. A value.
struct SourceResources {
    var records: [JobRecord]
    var byID: Bool

    /// What tells each of `records` (in their order) from the others: its id; or, without ids, its URL and
    /// which occurrence of that URL it is, so that a URL twice in a list and once in its source is one
    /// resource kept and one removed (the first kept, as the source's first is the list's first).
    func keys(_ records: [JobRecord]) -> [String] {
        guard !byID else { return records.map(\.id) }
        var seen: [String: Int] = [:]
        return records.map { record in
            let earlier = seen[record.url, default: 0]
            seen[record.url] = earlier + 1
            return earlier == 0 ? record.url : "\(record.url) #\(earlier + 1)"
        }
    }

    /// Reads the source of list `list` (named `record.name`): its manifest, fetched again (a URL) or read
    /// again (a local path, relative to the working directory as `farm add` was given it), the list found by
    /// its name in it; or every page of its paged API. Throws one sentence (without the list's name).
    /// Fetched with the list's `request` options (SPEC §12).
    static func read(_ record: ListRecord, spool: Spool, caFile: String?, request: RequestOptions?) throws(SyncFailure)
        -> SourceResources {
        if let paged = record.paged {
            guard let reader = try? PageReader(paged) else { throw SyncFailure("its source is no longer readable") }
            let items: [PageReader.Item]
            do { items = try reader.allItems(spool: spool, caFile: caFile, request: request) } catch {
                throw SyncFailure("cannot read its source \(paged.first): \(error)")
            }
            // As the follower adds them: an item without an id gets its job's name when it is added.
            return SourceResources(records: items.map { JobRecord(url: $0.url, id: $0.id ?? "", title: $0.title,
                                                                  caption: $0.caption) },
                                   byID: paged.id != nil)
        }
        // What was piped into `farm add -` is gone: reading standard input again would read sync's own.
        guard record.source != "-" else { throw SyncFailure("it was read from standard input, which cannot be read again") }
        let lists: [ManifestList]
        do { lists = try Coordinator.lists(from: record.source, spool: spool, request: request) } catch {
            throw SyncFailure("cannot read its source: \(error)")
        }
        guard let list = lists.first(where: { $0.name == record.name }) else {
            throw SyncFailure("its source \(record.source) no longer holds a list named \(record.name)")
        }
        var records: [JobRecord] = []
        var byID = true
        records.reserveCapacity(list.resources.count)
        for resource in list.resources.inOnePass {
            if resource.id == nil { byID = false }
            var record = JobRecord(url: resource.url, id: resource.id ?? "", sha256: resource.sha256)
            record.mirrors = resource.mirrors
            record.out = resource.out
            records.append(record)
        }
        return SourceResources(records: records, byID: byID && !records.isEmpty)
    }
}
