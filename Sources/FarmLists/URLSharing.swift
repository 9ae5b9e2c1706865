// Download once, paid by those who share (SPEC §13)
// ================================================
//
// What own URLs add to download once (FarmDedup's Dedup.swift, on FarmSpool's PROTOCOL.md).
//
// A URL's record, its holder attribute and the look-up of both (FarmDedup's protocol) serve only URLs
// that more than one job names, and most URLs are named once. So a job knows at its add whether it may
// go without them:
//
// - Every way of adding a job (`farm add`, `farm item add`, sync's new resources, a paged list's pages)
//   takes the add lock (control/add.lock) and, under it, reads which URLs the spool's lists name, from
//   their resource tables (`named(among:)`), and publishes its jobs' table lines before it lets go.
// - `farm add` marks `own` each job whose URL no list names and no other job of the add names. A list
//   whose table is lost (fsck reports it) might name any URL: then the add marks none.
// - A job added for a URL that a job marked own names (A) is marked `after: A`; before the new job is
//   queued, A is moved out of its add's batch to queue/0 if it is still queued there (`demote`).
// - An own job claimed from its add's batch (`Claim.isFresh`) makes its URL's partial with O_EXCL and
//   locks it, transfers, links its blob (equal bytes are still stored once) and writes no record and no
//   holder. A partial already there, or a lock taken, sends it down the whole protocol, and so does any
//   later claim of it (handed back, reclaimed, demoted): it may share its URL by then.
// - A job `after: A` waits while A is claimed; then it takes the URL's lock and looks for the record, as
//   every job does; when there is none and A is done, A's output is published as the URL's record and
//   the job is served from it (FarmWorker's SharedDownload).
//
// Why the URL is still fetched once. An own job A goes without the protocol only in its first claim.
// Every other job of its URL was added after it (one added before would have marked it not own: its
// table was published under the add lock, before A's add read the tables), so it is marked `after: A`,
// and from the moment it is queued A can no longer be claimed from its add's batch (demoted, or claimed
// already). Such a job waits for that first claim to end: A then is done (the job is served from A's
// output, and publishes it for every later job), or back in the queue, failed or removed, and from then
// on A takes the whole protocol if it runs again, so the two meet at the URL's lock and record as any
// two jobs do. Equal bytes under two URLs meet in blobs/ as before: an own job links its blob.
import FarmJSON
import FarmSpool
import FarmSystem
import SystemPackage

/// Which URLs the spool's lists name, for marking the jobs of an add (the protocol above). A value.
public struct URLSharing: Sendable {
    public let spool: Spool

    public init(_ spool: Spool) {
        self.spool = spool
    }

    /// Which of the URLs of an add the spool's lists name, by `key`, and the job marked own among those that
    /// name each one.
    public struct Named: Sendable {
        public var keys: Set<UInt64> = []
        public var owners: [UInt64: JobName] = [:]
        /// A list with no table was found: it may name any URL.
        public var unknown = false

        /// Whether a job of the URL of `key` may be marked own.
        public func mayOwn(_ key: UInt64) -> Bool { !unknown && !keys.contains(key) }
    }

    /// A 64-bit name of a URL (FNV-1a of its bytes). Two URLs with one key only cost a job the whole protocol.
    public static func key(_ url: String) -> UInt64 {
        var hash = FNV1a()
        hash.add(url)
        return hash.value
    }

    /// The key of the URL of a table's line as this farm writes it, without decoding the line: its last member,
    /// `"url":"…"}`, whose text has no quote or backslash (then it is the URL's bytes as they are). Nil for any
    /// other line (escapes), which is decoded instead. `"url":"` cannot occur
    /// inside a JSON string (each quote there is escaped), so its last occurrence starts the member.
    static func key(ofLine line: ArraySlice<UInt8>) -> UInt64? {
        let member = Array(#""url":""#.utf8)
        guard line.count > member.count + 2, line.last == UInt8(ascii: "}"),
              line[line.endIndex - 2] == UInt8(ascii: "\"") else { return nil }
        let end = line.endIndex - 2
        var start = end
        while start > line.startIndex {
            let byte = line[start - 1]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") { return nil }
            start -= 1
        }
        guard start - line.startIndex >= member.count, line[(start - member.count)..<start].elementsEqual(member)
        else { return nil }
        var hash = FNV1a()
        for byte in line[start..<end] { hash.add(byte) }
        return hash.value
    }

    /// Which of the URLs `keys` (an add's) the lists name, read from every list's table, published or still in
    /// a batch's pending lists, and which of their jobs are marked own. The caller holds the add lock.
    public func named(among keys: Set<UInt64>) -> Named {
        var named = Named()
        for (list, directory) in listFiles() {
            guard let bytes = try? FileSystem.readFile(directory + "/" + list + ListFiles.resourceTableSuffix, limit: 1 << 34)
            else {
                named.unknown = true
                continue
            }
            for line in bytes.split(separator: 0x0A) {
                guard let key = Self.key(ofLine: line) ?? JSON.decode(JobRecord.self, from: line).map({ Self.key($0.url) })
                else { continue }
                if keys.contains(key) { named.keys.insert(key) }
            }
        }
        named.owners = owners(of: named.keys)
        return named
    }

    /// The jobs marked own whose URL's key is one of `keys`, from the lists' `.own` files.
    func owners(of keys: Set<UInt64>) -> [UInt64: JobName] {
        var owners: [UInt64: JobName] = [:]
        for (list, directory) in listFiles() {
            guard let bytes = try? FileSystem.readFile(directory + "/" + list + ListFiles.ownedSuffix, limit: 1 << 34)
            else { continue }
            bytes.withUnsafeBytes { raw in
                for offset in stride(from: 0, to: raw.count - 15, by: 16) {
                    let key = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    let index = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                    if keys.contains(key), index < 1 << 40 { owners[key] = JobName(list: list, index: Int(index)) }
                }
            }
        }
        return owners
    }

    /// The bytes of a list's `.own` file: each job marked own as its URL's key and its number, 8 bytes each
    /// (little-endian).
    public static func ownedFile(_ jobs: [(key: UInt64, index: Int)]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(jobs.count * 16)
        for job in jobs {
            withUnsafeBytes(of: job.key.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt64(job.index).littleEndian) { bytes += $0 }
        }
        return bytes
    }

    /// Every list with the directory its files are in: lists/, or the pending lists of a committed batch.
    ///
    /// A batch holds pending lists only while its stage's lock file is in tmp/ (the add removes it after
    /// publishing them, recovery only once it has published them: Recovery.swift), so those batches are
    /// found from tmp/, a few names, not from queue/: a recursive list makes a batch for each page's links,
    /// and reading queue/ for each page made a page's cost grow with the pages before it.
    private func listFiles() -> [(list: String, directory: String)] {
        var found = spool.lists.ids().map { ($0, spool.lists.folder) }
        for batch in spool.batchesBeingAdded() {
            let pending = spool.lists.pending(ofBatch: batch)
            found += FileSystem.names(pending).compactMap(ListFiles.listID(ofRecordName:)).map { ($0, pending) }
        }
        return found
    }

    /// Moves the jobs `owners` that are still queued in their add's batch to queue/0, where a claim takes the
    /// whole protocol. A job not found there was claimed already (or is gone). The caller holds the add lock,
    /// and queues the jobs marked after them only once this returned.
    public func demote(_ owners: Set<JobName>) throws(SpoolError) {
        guard !owners.isEmpty else { return }
        for batch in FileSystem.names(spool.queue) where BatchName.isAdded(batch) {
            for shard in FileSystem.names(spool.path(.queue, batch)) where !shard.hasPrefix(".") {
                let path = spool.path(.queue, batch, shard)
                for name in FileSystem.names(path) {
                    guard let job = JobName(name), owners.contains(job) else { continue }
                    _ = try spool.returnToQueue(path + "/" + name, job: job)
                }
            }
        }
    }

    /// Marks `records`, jobs added by an edit or a page, `after` the own job that names its URL (and demotes
    /// that job). The caller holds the add lock.
    func share(_ records: inout [JobRecord]) throws(SpoolError) {
        let found = owners(of: Set(records.map { Self.key($0.url) }))
        var owners = Set<JobName>()
        for index in records.indices {
            if let owner = found[Self.key(records[index].url)] {
                records[index].after = owner
                owners.insert(owner)
            }
        }
        try demote(owners)
    }

    /// Runs `body` under the add lock (control/add.lock), which every way of adding a job takes.
    func lockingAdds<T>(_ body: () throws(SpoolError) -> T) throws(SpoolError) -> T {
        let lock: FileDescriptor
        do { lock = try spool.control.lockAdds() } catch {
            throw SpoolError(.io, "cannot lock \(spool.control.addLock)", cause: error)
        }
        defer { lock.closeQuietly() }
        return try body()
    }
}
