import FarmLists
import FarmManifest
import FarmPages
import FarmSpool
import FarmSystem
import FarmTransfer
import FoundationEssentials
import Glibc
import SystemPackage

/// What one `add` did.
public struct AddReport: Sendable {
    /// Lists enqueued now, with their resource counts.
    public var added: [(name: String, total: Int)] = []
    /// Lists that were already in the spool with the same URLs: nothing was added for them.
    public var alreadyThere: [String] = []
    /// Those of `alreadyThere` that this add asked other request or delivery options for: they keep their own.
    public var optionsIgnored: [String] = []
    /// Paged lists added now: their pages are followed by the running farm.
    public var followed: [String] = []
}

/// The coordinator: reads a manifest and enqueues one job per resource, atomically (SPEC §1–2).
///
/// Runs inside the `farm add` process. Two adds on one spool take turns (an flock on
/// control/add.lock), so "is this list already there?" and the enqueue that follows cannot interleave.
public enum Coordinator {
    /// Whether list `id`, in the spool as `existing`, has the request options and delivery an add of it asks
    /// for now (a delivery's mode is the asking umask's, not an option: not compared).
    static func sameOptions(ofList id: String, _ existing: ListRecord, request: RequestOptions?, delivery: Delivery?,
                            spool: Spool) -> Bool {
        func place(_ delivery: Delivery?) -> [String]? {
            delivery.map { [$0.folder, $0.template, String($0.link ?? false)] }
        }
        return RequestOptions.decoded(spool.lists.requestOptions(ofList: id)) == request
            && place(existing.delivery) == place(delivery)
    }

    /// `progress` hears how many jobs are staged out of how many, every 10,000 (a million-URL add takes
    /// a while, and a command that runs long shows how far it is).
    /// `fresh`: every job is downloaded again even when its URL's result is stored (`farm add --fresh`).
    /// `request`: the headers, cookies, user agent and proxy of every request for its lists (SPEC §12).
    /// `delivery`: where their done resources go too (SPEC §12).
    public static func add(source: String?, to spool: Spool, fresh: Bool = false, request: RequestOptions? = nil,
                           delivery: Delivery? = nil, progress: (_ staged: Int, _ total: Int) -> Void = { _, _ in }) throws(AddError)
        -> AddReport {
        let source = source ?? ManifestSource.original
        let lock = try takeAddLock(spool)
        defer { lock.closeQuietly() }
        do { try Lists(spool).recover() } catch { throw AddError(.recovery, spool.root, cause: error) }

        let lists = try lists(from: source, spool: spool, request: request)

        var report = AddReport()
        var adding: [(id: String, resources: ManifestResources)] = []
        var records: [ListRecordFile] = []
        let added = Timestamp.iso8601(Double(time(nil)))
        for list in lists {
            let id = ListID.of(name: list.name)
            let digest = digest(of: list)
            if let existing = spool.list(id) {
                guard existing.digest == digest else {
                    throw AddError(.conflict, list.name)
                }
                report.alreadyThere.append(list.name)
                if !sameOptions(ofList: id, existing, request: request, delivery: delivery, spool: spool) {
                    report.optionsIgnored.append(list.name)
                }
                continue
            }
            adding.append((id, list.resources))
            let record = ListRecord(name: list.name, total: list.resources.count, digest: digest, source: source,
                                    added: added, shape: list.form.rawValue, request: request.map(summary),
                                    delivery: delivery)
            records.append(ListRecordFile(id: id, bytes: record.encoded(), request: request?.encoded()))
            report.added.append((list.name, list.resources.count))
        }
        guard !records.isEmpty else { return report }
        let total = adding.reduce(0) { $0 + $1.resources.count }
        let sharing: Sharing
        do { sharing = try Sharing(adding.map(\.resources), records: &records, spool: spool) } catch {
            throw AddError(.enqueue, source, cause: error)
        }
        var staged = 0
        do {
            try withoutActuallyEscaping(progress) { progress throws(SpoolError) in
                // Made one at a time as the batch is staged: a million jobs are never all in memory at once.
                let jobs = adding.enumerated().lazy.flatMap { number, list in
                    list.resources.inOnePass.enumerated().lazy.map { index, resource in
                        staged += 1
                        if staged % 10_000 == 0 { progress(staged, total) }
                        let name = JobName(list: list.id, index: index)
                        var record = JobRecord(url: resource.url, id: resource.id ?? name.raw, sha256: resource.sha256)
                        record.fresh = fresh
                        record.mirrors = resource.mirrors
                        record.out = resource.out
                        sharing.mark(&record, list: number, index: index)
                        return NewJob(name: name, record: record)
                    }
                }
                try spool.enqueue(jobs, lists: records)
            }
        } catch {
            throw AddError(.enqueue, source, cause: error)
        }
        return report
    }

    /// Which jobs of an add are marked own, and which `after` another (FarmLists' URLSharing.swift): read
    /// before the batch is staged, with the owners its URLs name demoted from their batches already.
    private struct Sharing {
        let keys: [[UInt64]]
        let counts: [UInt64: Int]
        let named: URLSharing.Named

        /// `records` (one a list of `lists`, in order) gain each list's `.own` file.
        init(_ lists: [ManifestResources], records: inout [ListRecordFile], spool: Spool) throws(SpoolError) {
            let sharing = URLSharing(spool)
            keys = lists.map { $0.map { URLSharing.key($0.url) } }
            var counts: [UInt64: Int] = [:]
            for key in keys.joined() { counts[key, default: 0] += 1 }
            self.counts = counts
            named = sharing.named(among: Set(counts.keys))
            var owners = Set<JobName>()
            for (number, listKeys) in keys.enumerated() {
                var owned: [(key: UInt64, index: Int)] = []
                for (index, key) in listKeys.enumerated() {
                    if isOwn(key) { owned.append((key, index)) } else if let owner = named.owners[key] { owners.insert(owner) }
                }
                if !owned.isEmpty { records[number].owned = URLSharing.ownedFile(owned) }
            }
            try sharing.demote(owners)
        }

        private func isOwn(_ key: UInt64) -> Bool { counts[key] == 1 && named.mayOwn(key) }

        func mark(_ record: inout JobRecord, list number: Int, index: Int) {
            let key = keys[number][index]
            record.own = isOwn(key)
            record.after = named.owners[key]
        }
    }

    /// `farm add URL --items … --url …`: records a paged JSON API as list `name` (the last part of the
    /// URL's path when nil) with no resource yet, for the farm's follower to fetch its pages (SPEC §7).
    /// Throws `.malformed` for a pointer that is none, and `.conflict` for a list of that name that is
    /// not this source; the same source added again adds nothing.
    public static func add(paged source: PagedSource, name: String?, to spool: Spool,
                           request: RequestOptions? = nil, delivery: Delivery? = nil) throws(AddError) -> AddReport {
        do { _ = try PageReader(source) } catch { throw AddError(.malformed, source.first, cause: error) }
        let name = name ?? urlFileName(source.first)
        let lock = try takeAddLock(spool)
        defer { lock.closeQuietly() }
        do { try Lists(spool).recover() } catch { throw AddError(.recovery, spool.root, cause: error) }
        let id = ListID.of(name: name)
        var hash = FNV1a()
        hash.add(String(decoding: source.encoded(), as: UTF8.self))
        var report = AddReport()
        if let existing = spool.list(id) {
            guard existing.digest == hash.hex else { throw AddError(.conflict, name) }
            report.alreadyThere.append(name)
            if !sameOptions(ofList: id, existing, request: request, delivery: delivery, spool: spool) {
                report.optionsIgnored.append(name)
            }
            return report
        }
        let record = ListRecord(name: name, total: 0, digest: hash.hex, source: source.first,
                                added: Timestamp.iso8601(Double(time(nil))), shape: ListForm.objects.rawValue,
                                paged: source, request: request.map(summary), delivery: delivery)
        do {
            try spool.enqueue([NewJob](), lists: [ListRecordFile(id: id, bytes: record.encoded(),
                                                                 firstPage: PageState(first: source.first).encoded(),
                                                                 request: request?.encoded())])
        } catch {
            throw AddError(.enqueue, source.first, cause: error)
        }
        report.followed.append(name)
        return report
    }

    /// The list record's view of `request`: names and counts, no secret.
    static func summary(_ request: RequestOptions) -> RequestSummary {
        RequestSummary(headers: request.headerNames, cookies: request.cookies.count, proxy: request.shownProxy,
                       userAgent: request.userAgent)
    }

    static func takeAddLock(_ spool: Spool) throws(AddError) -> FileDescriptor {
        do { return try spool.control.lockAdds() } catch { throw AddError(.lock, spool.control.addLock, cause: error) }
    }

    /// The last path component of a URL, percent-decoded, for messages and single-JSON list names.
    static func urlFileName(_ url: String) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let last = path.split(separator: "/").last.map(String.init) ?? url
        return last.percentDecoded ?? last
    }

    /// FNV-1a 64 over every URL and id, in order: equal lists have equal digests.
    static func digest(of list: ManifestList) -> String {
        var hash = FNV1a()
        for resource in list.resources.inOnePass {
            hash.add(resource.url)
            hash.add(0x0A)
            hash.add(resource.id ?? "")
            hash.add(0x0A)
        }
        return hash.hex
    }
}
