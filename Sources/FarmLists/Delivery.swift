import FarmDedup
import FarmMirror
import FarmSpool
import FarmSystem
import SystemPackage

/// Delivery of done resources to their list's folder (SPEC §12, `farm add --out DIR --name TEMPLATE`):
/// the download appears at `DIR/<template>` as the user's own file, sharing nothing an edit of it could
/// reach with the spool's bytes (a reflink where the file system has them, else a copy), with the mode the
/// umask of the `farm add` gave; with `--link`, as a hard link of the spool's file where DIR is on its file
/// system (an edit of it is then an edit of the spool's output, its blob, and every other list's output of
/// the same bytes). Either way in one step: `link(2)`, or a copy made as an unnamed file (`O_TMPFILE`) and
/// linked in whole, so a kill at any moment leaves no half-written file in DIR.
///
/// Two resources that would take one path are numbered in list order (` (2)`, ` (3)`…) by what their
/// names are before their bytes are known (`DeliveryTemplate.key`): a rule every worker of every host
/// applies alike, whichever finishes first. What a delivery put in DIR carries the attribute
/// `user.farm.delivered` (spool and job): a file there without it is the user's, and farm neither
/// replaces nor removes it.
///
/// One a process, shared by its threads: each list's numbering is worked out once from its resource
/// table and order, again when either changed.
public final class Deliveries: Sendable {
    let spool: Spool
    /// Each list's plan (nil: it delivers nothing) and when it was made.
    private let plans = Locked<[String: (plan: Plan?, made: Double)]>([:])
    /// How long a list that delivers nothing is taken at its word without a look: a list of the same
    /// name added again after a reset may.
    static let recheck = 2.0

    public init(spool: Spool) { self.spool = spool }

    struct Plan: Sendable {
        let stamp: [Int]
        let folder: String
        let template: DeliveryTemplate
        /// A hard link (`--link`), not a file of the user's own.
        let links: Bool
        /// `--convert-links`: a delivery undoes the list's mark of converted links.
        let convertsLinks: Bool
        /// A recursive list's `--accept`/`--reject`, which decide what is delivered (SPEC §18): an HTML page
        /// they refuse is still fetched and read for its links, as wget does, but not delivered.
        let scope: CrawlScope?
        /// The permission bits of a copy.
        let mode: UInt32
        let name: String
        let width: Int
        let table: [JobRecord]
        /// Each job number's position in the list and its number among those of the same name.
        let places: [Int: (position: Int, number: Int)]
        /// Where the next plan of a list that grows at its end starts from.
        let growth: Growth
    }

    /// What a plan was made of, so that the next one of a list that only grew reads what was added alone.
    struct Growth: Sendable {
        var table: [JobRecord] = []
        /// Where in the table file the lines of `table` end: whole lines, each one the order names (a line
        /// past them may be an append's that its journal undoes and another append writes again). -1: not
        /// known (the table was read by `resources(ofList:)`), so the next plan starts from the start.
        var tableBytes = 0
        /// The end of each line read by the last `extend`, in the file.
        var lineEnds: [Int] = []
        var order: [Int] = []
        var seen: [String: Int] = [:]
        var places: [Int: (position: Int, number: Int)] = [:]
        var template: DeliveryTemplate?
        var width = 0

        /// Reads the table's whole lines past `tableBytes` into `table`; false when the table is shorter, cannot
        /// be read, or a line does not parse.
        mutating func extend(reading path: String) -> Bool {
            guard tableBytes >= 0, let fd = try? FileDescriptor.open(path, .readOnly) else { return false }
            defer { fd.closeQuietly() }
            guard let size = try? Int(fd.status().size), size >= tableBytes else { return false }
            var tail = [UInt8](repeating: 0, count: size - tableBytes)
            let offset = tableBytes
            guard let count = try? tail.withUnsafeMutableBytes({ buffer in
                try Result { () throws(Errno) in try fd.read(at: offset, into: buffer) }.get()
            }) else { return false }
            var end = tableBytes
            lineEnds = []
            // The last piece is what follows the last newline: a line not whole yet, left for later.
            for line in tail.prefix(count).split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
                guard let record = JobRecord.decoded(from: line) else { return false }
                end += line.count + 1
                table.append(record)
                lineEnds.append(end)
            }
            return true
        }

        /// Keeps of `table` the `committed` lines the order names, and where they end for the next `extend`.
        mutating func keep(committed: Int) {
            guard tableBytes >= 0 else { return }
            let firstNew = table.count - lineEnds.count
            if committed >= table.count {
                tableBytes = lineEnds.last ?? tableBytes
            } else if committed >= firstNew {
                tableBytes = committed == firstNew ? tableBytes : lineEnds[committed - firstNew - 1]
                table.removeSubrange(committed...)
            } else {
                tableBytes = -1
            }
            lineEnds = []
        }
    }

    /// Delivers `file`, the stored download of `job` (of extension `ext`, and SHA-256 `sha256` when known),
    /// replacing where it was delivered before (`old`, else what its done record says) when that is
    /// elsewhere; returns where it is now, or nil when its list delivers nothing (no system call then,
    /// most of the time) or not this one (a recursive list's `--accept`/`--reject`). Throws the reason as one sentence.
    public func deliver(_ job: JobName, file: String, ext: String, sha256: String?, old: String? = nil)
        throws(DeliveryError) -> String? {
        guard var plan = try plan(ofList: job.list) else { return nil }
        let old = old ?? spool.sidecars.last(job, finished: [.done])?.delivered
        if plan.places[job.index] == nil || job.index >= plan.table.count {
            // An append (a crawled page's links, a page) queues its jobs a moment before it commits them to
            // the list's order (PageAppend.swift): a job claimed in that moment waits for the commit, as a
            // job of an add waits for its list's record (`plan`).
            Clock.poll(every: 0.05, for: 2) {
                guard let again = try? self.plan(ofList: job.list) else { return false }
                plan = again
                return plan.places[job.index] != nil && job.index < plan.table.count
            }
        }
        guard let place = plan.places[job.index], job.index < plan.table.count else {
            throw DeliveryError("\(job) is no longer in its list")
        }
        let record = plan.table[job.index]
        if let scope = plan.scope, let url = WebURL(record.url), !scope.delivers(url) { return nil }
        var digest = sha256
        if digest == nil, plan.template.uses(.sha256) {
            do { digest = try Dedup.digest(ofFile: file) } catch {
                throw DeliveryError("cannot read \(file): \(error)")
            }
        }
        let values = DeliveryTemplate.Values(list: plan.name, index: place.position, width: plan.width, id: record.id,
                                             url: record.url, title: record.title, ext: ext, sha256: digest,
                                             name: record.out)
        let target = plan.folder + "/" + plan.template.path(values, number: place.number)
        do {
            try makeFolders(of: target, below: plan.folder)
            if plan.links {
                try link(file, at: target, job: job, mode: plan.mode)
            } else {
                try put(file, at: target, job: job, mode: plan.mode)
            }
        } catch {
            throw DeliveryError("\(target): \(error)")
        }
        if let old, old != target { remove(old, of: job) }
        // After the new bytes are in: a conversion that wrote its mark before them is undone by this, one
        // that comes after sees the list unfinished until this job completes (LinkConversion.swift).
        if plan.convertsLinks { try? FileSystem.unlink(spool.lists.convertedMarkPath(ofList: job.list)) }
        return target
    }

    /// Deletes `path` when a delivery of `job` put it there (`farm item rm`); a file farm did not deliver
    /// is left alone.
    public func remove(_ path: String, of job: JobName) {
        guard isDelivery(path, of: job) else { return }
        try? FileSystem.unlink(path)
    }

    /// The value of the attribute that marks what a delivery of `job` wrote.
    private func mark(_ job: JobName) -> [UInt8] { Array((spool.root + "\n" + job.raw).utf8) }

    func isDelivery(_ path: String, of job: JobName) -> Bool {
        (try? FileSystem.attribute(path, Self.markAttribute, limit: 4096)) == mark(job)
    }

    static let markAttribute = "user.farm.delivered"

    /// Puts a file of the user's own with the bytes of `file` at `target` (a reflink or a copy, of
    /// permissions `mode`); over a file only when a delivery of this job wrote it (a sync's new version, a
    /// reload, a retry after a kill).
    private func put(_ file: String, at target: String, job: JobName, mode: UInt32) throws(Errno) {
        do { try copy(file, to: target, job: job, mode: mode) } catch where error == .fileExists {
            guard isDelivery(target, of: job) else { throw Errno.fileExists }
            let scratch = Self.scratch(for: target)
            try? FileSystem.unlink(scratch)
            try copy(file, to: scratch, job: job, mode: mode)
            try FileSystem.rename(scratch, target)
        }
    }

    /// Puts `file` at `target` as a new name of it (`--link`), else (DIR on another file system) a copy;
    /// over a file only when a delivery of this job wrote it.
    private func link(_ file: String, at target: String, job: JobName, mode: UInt32) throws(Errno) {
        do {
            try FileSystem.link(file, target)
            try? FileSystem.setAttribute(target, Self.markAttribute, mark(job))
            return
        } catch where error == .fileExists {
            if let a = try? FileSystem.stat(file), let b = try? FileSystem.stat(target), a.inode == b.inode { return }
            guard isDelivery(target, of: job) else { throw Errno.fileExists }
            let scratch = Self.scratch(for: target)
            try? FileSystem.unlink(scratch)
            do { try FileSystem.link(file, scratch) } catch where error == .improperLink {
                try copy(file, to: scratch, job: job, mode: mode)
            }
            try? FileSystem.setAttribute(scratch, Self.markAttribute, mark(job))
            try FileSystem.rename(scratch, target)
        } catch where error == .improperLink {
            try put(file, at: target, job: job, mode: mode)
        }
    }

    /// Replaces what a delivery of `job` put at `target` with `bytes` (`--convert-links`' version of it,
    /// LinkConversion.swift), as a new file of permissions `mode`, marked as the delivery's, synced and renamed
    /// over it: a kill leaves the old file or the new one, whole. Never written in place: with `--link`
    /// the old file is the spool's own. A file there that farm did not deliver is left alone (`.fileExists`).
    func replace(_ target: String, with bytes: [UInt8], job: JobName, mode: UInt32) throws(Errno) {
        guard isDelivery(target, of: job) else { throw Errno.fileExists }
        let scratch = Self.scratch(for: target) + ".part"
        try? FileSystem.unlink(scratch)
        let to = try FileDescriptor.open(scratch, .writeOnly, options: [.create, .exclusiveCreate], permissions: mode)
        defer { to.closeQuietly() }
        do throws(Errno) {
            try to.write(contentsOf: bytes)
            try to.setPermissions(mode)
            try? to.setAttribute(Self.markAttribute, mark(job))
            try to.sync()
            try FileSystem.rename(scratch, target)
        } catch {
            try? FileSystem.unlink(scratch)
            throw error
        }
    }

    /// Where a replacement is linked before it is renamed over the old file: beside it, hidden.
    static func scratch(for target: String) -> String {
        let slash = target.lastIndex(of: "/")!
        return String(target[...slash]) + ".farm-" + String(target[target.index(after: slash)...].prefix(200))
    }

    /// Copies `file` to the new name `target` (`.fileExists` when it is taken): a reflink where the file
    /// system has them, else the bytes, written whole as an unnamed file of its folder, given `mode` (set
    /// on the descriptor: the worker's umask is not the user's), marked and synced, then linked in (a kill
    /// leaves nothing); where the file system has no unnamed files, written under a hidden name and renamed.
    private func copy(_ file: String, to target: String, job: JobName, mode: UInt32) throws(Errno) {
        let from = try FileDescriptor.open(file, .readOnly)
        defer { from.closeQuietly() }
        let folder = String(target[..<target.lastIndex(of: "/")!])
        let unnamed = try? FileDescriptor.openUnnamed(in: folder, permissions: mode)
        let scratch = unnamed == nil ? Self.scratch(for: target) + ".part" : nil
        let to: FileDescriptor
        if let unnamed {
            to = unnamed
        } else {
            try? FileSystem.unlink(scratch!)
            to = try FileDescriptor.open(scratch!, .writeOnly, options: [.create, .exclusiveCreate], permissions: mode)
        }
        defer { to.closeQuietly() }
        do throws(Errno) {
            try to.copyContents(of: from)
            try to.setPermissions(mode)
            try? to.setAttribute(Self.markAttribute, mark(job))
            try to.sync()
            if let scratch {
                if FileSystem.exists(target) { throw Errno.fileExists }
                try FileSystem.rename(scratch, target)
            } else {
                try to.link(to: target)
            }
        } catch {
            if let scratch { try? FileSystem.unlink(scratch) }
            throw error
        }
    }

    /// Makes the folders of `target` below `folder` (the list's DIR, which `add` made).
    private func makeFolders(of target: String, below folder: String) throws(Errno) {
        var path = folder
        let relative = target.dropFirst(folder.count + 1).split(separator: "/").dropLast()
        for segment in relative {
            path += "/" + segment
            try FileSystem.ensureDirectory(path)
        }
    }

    /// What a recursive list's `--accept`/`--reject` deliver; nil when it has neither (or is not recursive).
    private static func scope(of record: ListRecord) -> CrawlScope? {
        guard let crawl = record.request?.recursive, !crawl.accept.isEmpty || !crawl.reject.isEmpty,
              let start = WebURL(record.source) else { return nil }
        return CrawlScope(start: start, options: CrawlOptions(accept: crawl.accept, reject: crawl.reject))
    }

    /// List `id`'s delivery plan, made again when its table or order changed; nil when it delivers nothing.
    private func plan(ofList id: String) throws(DeliveryError) -> Plan? {
        let now = Clock.monotonic()
        let known = plans.withLock { $0[id] }
        if let known, known.plan == nil, now - known.made < Self.recheck { return nil }
        let stamp = [spool.lists.resourceTablePath(ofList: id), spool.lists.orderPath(ofList: id)].flatMap { path -> [Int] in
            guard let st = try? FileSystem.stat(path) else { return [-1, -1] }
            return [Int(st.size), Int(st.modificationTime * 1e6)]
        }
        if let plan = known?.plan, plan.stamp == stamp { return plan }
        // A batch's jobs are in the queue a moment before its list records are published (see "Add" in
        // the protocol): a job claimed in that moment waits for its record.
        var record: ListRecord?
        Clock.poll(every: 0.05, for: 2) {
            record = spool.list(id)
            return record != nil
        }
        guard let record, let delivery = record.delivery else {
            plans.withLock { $0[id] = (nil, now) }
            return nil
        }
        let template: DeliveryTemplate
        do { template = try DeliveryTemplate(delivery.template) } catch { throw error }
        // The order before the table: the table has every line the order names (an append writes its lines
        // first), so none is missed in between.
        let order = Lists(spool).order(ofList: id, total: record.total).numbers
        let width = String(max(0, order.count - 1)).count
        // A list that grows at its end (a recursive list's links, a paged list's pages) is planned on from
        // where its last plan stopped: only the table's new lines are read, only the new places worked out,
        // so a delivery costs what the list grew by since, not what it holds. An edit (the order changed
        // before its end), a width that renames every {index}, or a table cut short is planned from the start.
        var grown = Growth()
        if let old = known?.plan?.growth, old.order.count <= order.count, order.starts(with: old.order),
           old.template == template, old.width == width || !template.uses(.index) {
            grown = old
        }
        let tablePath = spool.lists.resourceTablePath(ofList: id)
        if !grown.extend(reading: tablePath) {
            grown = Growth()
            if !grown.extend(reading: tablePath) {
                grown = Growth(tableBytes: -1)
                grown.table = spool.lists.resources(ofList: id) ?? []
            }
        }
        for position in grown.order.count..<order.count where order[position] < grown.table.count {
            let number = order[position], line = grown.table[number]
            let key = template.key(DeliveryTemplate.Values(list: record.name, index: position, width: width,
                                                           id: line.id, url: line.url, title: line.title,
                                                           name: line.out))
            let count = (grown.seen[key] ?? 0) + 1
            grown.seen[key] = count
            grown.places[number] = (position, count)
        }
        grown.order = order
        grown.template = template
        grown.width = width
        grown.keep(committed: (order.max() ?? -1) + 1)
        let plan = Plan(stamp: stamp, folder: delivery.folder, template: template, links: delivery.links,
                        convertsLinks: delivery.convertsLinks, scope: Self.scope(of: record),
                        mode: UInt32(delivery.mode) & 0o7777, name: record.name, width: width, table: grown.table,
                        places: grown.places, growth: grown)
        plans.withLock { $0[id] = (plan, now) }
        return plan
    }
}
