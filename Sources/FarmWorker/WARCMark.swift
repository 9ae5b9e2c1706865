import FarmDedup
import FarmSpool
import FarmSystem
import FarmWARC
import SystemPackage

/// The mark of one URL of a list recorded as WARC (`warc/urls/<list>/<key>`, WARCFiles.urlMark): where its
/// response record was noted to go before it was appended, and its status (WARCArchive.swift says why). One
/// line: `<file> <offset> <records> <position> <record ID> <status>`: the file's finished name, where the
/// group of records it was appended with starts, how many members that group has, the response's place in it
/// (from 0), its WARC-Record-ID, its HTTP status.
struct WARCMark: Equatable {
    let file: String
    let offset: Int
    let records: Int
    let position: Int
    let responseID: String
    let status: Int

    /// A mark as read; nil for an empty file (made, never written) or anything else.
    init?(bytes: [UInt8]) {
        let words = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first?
            .split(separator: " ").map(String.init) ?? []
        guard words.count == 6, !words[0].contains("/"), let offset = Int(words[1]), let records = Int(words[2]),
              let position = Int(words[3]), position < records, let status = Int(words[5]) else { return nil }
        self.init(file: words[0], offset: offset, records: records, position: position, responseID: words[4],
                  status: status)
    }

    init(file: String, offset: Int, records: Int, position: Int, responseID: String, status: Int) {
        self.file = file
        self.offset = offset
        self.records = records
        self.position = position
        self.responseID = responseID
        self.status = status
    }

    var bytes: [UInt8] { Array("\(file) \(offset) \(records) \(position) \(responseID) \(status)\n".utf8) }

    /// Whether the response it names is whole in its file in `folder` (the open name first: recovery renames
    /// it to the finished one, never back). A group torn by a kill keeps its first members: the members
    /// before this one must be whole too, for it to be.
    ///
    /// The offset is where the group went, and stays so until the file is compacted (WARCCompaction: a record
    /// a later fetch superseded dropped from it), which moves the members after the dropped ones: when the
    /// response is not at its place, the file is read from its start for it. That costs a read of the file,
    /// but only for a URL recorded again whose group a kill tore, or whose file lost a record meanwhile.
    func isWritten(in folder: String) throws(WARCError) -> Bool {
        for name in [file + WARCWriter.openSuffix, file] {
            let path = folder + "/" + name
            guard let ids = try WARCScan.recordIDs(path: path, from: offset, limit: position + 1) else { continue }
            if ids.count == position + 1 && ids[position].text == responseID { return true }
            return try WARCScan.recordIDs(path: path, from: 0, limit: .max)?.contains { $0.text == responseID } ?? false
        }
        return false
    }

    /// Whether an answer `status` is still to be recorded where this mark's is: when this one is an error and
    /// that one not (the job failed, and `farm retry` fetched the resource).
    func yields(to status: Int) -> Bool { self.status >= 400 && status < 400 }
}

/// The marks of the URLs one record is about, created when missing and flocked, in the order of their keys
/// (so that two records of overlapping URLs never wait for each other in a circle), until `close`. Owned by the
/// thread that records.
final class WARCMarks {
    /// By key.
    private var held: [String: (fd: FileDescriptor, path: String)] = [:]
    /// Each URL's key.
    private var keys: [String: String] = [:]

    /// Locks the marks of `urls` of list `list`.
    convenience init(urls: [String], ofList list: String, spool: Spool) throws(WARCError) {
        try self.init(keys: Dictionary(urls.map { ($0, Dedup.urlKey($0)) }, uniquingKeysWith: { first, _ in first }),
                      ofList: list, spool: spool)
    }

    /// Locks the marks of list `list` named by `keys`, each URL's key (`Dedup.urlKey`), or a key's own.
    init(keys: [String: String], ofList list: String, spool: Spool) throws(WARCError) {
        self.keys = keys
        let byKey = Dictionary(keys.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let folder = spool.warc.urlMarks(ofList: list)
        do { try FileSystem.ensureDirectories(folder) } catch { throw WARCError("cannot make \(folder)", error) }
        for key in byKey.keys.sorted() {
            let path = spool.warc.urlMark(ofList: list, key: key)
            let fd: FileDescriptor
            do { fd = try FileDescriptor.open(path, .readWrite, options: [.create], permissions: 0o644) } catch {
                close()
                throw WARCError("cannot open \(path)", error)
            }
            held[key] = (fd, path)
            do { try fd.lock() } catch {
                close()
                throw WARCError("cannot lock \(path)", error)
            }
        }
    }

    deinit { close() }

    /// The mark of `url` as it stands; nil when it has none (or one unreadable: recorded again).
    func mark(of url: String) -> WARCMark? {
        guard let key = keys[url], let fd = held[key]?.fd else { return nil }
        // At offset 0 (pread): read again after `note`, a read that moved the offset would find nothing.
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { (buffer) -> Int in (try? fd.read(at: 0, into: buffer)) ?? 0 }
        return WARCMark(bytes: Array(bytes[0..<count]))
    }

    /// Replaces `url`'s mark with `mark`, on the disk when it returns.
    func note(_ mark: WARCMark, for url: String) throws(WARCError) {
        guard let key = keys[url], let (fd, path) = held[key] else { return }
        var failure: Errno?
        mark.bytes.withUnsafeBytes { raw in
            do throws(Errno) {
                try fd.truncate(to: 0)
                _ = try fd.write(contentsOf: raw, at: 0)
                try fd.syncData()
            } catch { failure = error }
        }
        if let failure { throw WARCError("cannot write \(path)", failure) }
    }

    /// Unlocks and closes them all.
    func close() {
        for (fd, _) in held.values { fd.closeQuietly() }
        held = [:]
        keys = [:]
    }
}

/// A job's mark of the older form, `warc/marks/<job>` (WARCFiles.mark): three lines, the file's finished name,
/// the offset of the response's member, its WARC-Record-ID. farm wrote one before its marks were by URL, for a
/// job's one exchange; a spool that has some still has its jobs recorded by them.
enum WARCJobMark {
    /// Whether the mark at `path` names a response that is whole in its file in `folder`; false when there is
    /// no such mark.
    static func recordsJob(at path: String, in folder: String) throws(WARCError) -> Bool {
        guard let bytes = try? FileSystem.readFile(path) else { return false }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count == 3, let offset = Int(lines[1]), !lines[0].contains("/") else { return false }
        let mark = WARCMark(file: lines[0], offset: offset, records: 1, position: 0, responseID: lines[2], status: 200)
        return try mark.isWritten(in: folder)
    }
}
