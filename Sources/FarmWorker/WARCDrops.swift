import FarmSpool
import FarmSystem
import FarmWARC
import SystemPackage

/// The response records of one URL of a list that a later fetch superseded, still to drop from their WARC
/// files, `warc/drops/<list>/<key>` (WARCFiles.drop; WARCArchive.swift says why). One line each:
/// `<record ID> <file> <folder>`, the response's WARC-Record-ID, its file's finished name, the folder (the
/// rest of the line).
///
/// A drop is carried out only under the URL's mark lock and only once the mark names a response that is whole
/// and is not the one to drop: the URL then keeps a response whatever is dropped, and a drop noted by a record
/// a kill stopped before its append waits for the redo's. It is carried out by the record of its URL (the one
/// that noted it, or the redo), and by each worker as it starts and as it ends (`sweep`, once its own files
/// are finished), so a drop from a file another worker had open is done when that one is finished (or, that
/// worker killed, by the next worker to start or end, once recovery finished its file). A kill in a compaction leaves the drop noted: the next one does it again (WARCCompaction is safe
/// to repeat); a drop is unnoted after its file no longer holds the record.
enum WARCDrops {
    struct Drop: Equatable {
        let responseID: String
        let file: String
        let folder: String
    }

    /// The drops noted at `path`; none when there is no such file.
    static func read(_ path: String) -> [Drop] {
        guard let bytes = try? FileSystem.readFile(path) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard words.count == 3, !words[1].contains("/") else { return nil }
            return Drop(responseID: words[0], file: words[1], folder: words[2])
        }
    }

    /// Notes `drop` for the URL of `key` of `list` (beside those noted already), on the disk when it returns.
    /// The caller holds the URL's mark lock.
    static func note(_ drop: Drop, ofList list: String, key: String, spool: Spool) throws(WARCError) {
        let path = spool.warc.drop(ofList: list, key: key)
        let noted = read(path)
        if noted.contains(drop) { return }
        try write(noted + [drop], to: path, list: list, spool: spool)
    }

    /// Carries out the drops of the URL of `key` of `list`, whose mark (locked by the caller) is `mark`: those
    /// of files finished; those of files still open stay noted. Failures are logged and left for the next try.
    static func carryOut(ofList list: String, key: String, mark: WARCMark?, spool: Spool) {
        let path = spool.warc.drop(ofList: list, key: key)
        let noted = read(path)
        if noted.isEmpty { return }
        var left: [Drop] = []
        for drop in noted {
            do throws(WARCError) {
                guard let mark, mark.responseID != drop.responseID, try mark.isWritten(in: drop.folder) else {
                    left.append(drop)
                    continue
                }
                switch try WARCCompaction.drop(responseIDs: [drop.responseID], from: drop.file, in: drop.folder) {
                case .done: break
                case .open: left.append(drop)
                }
            } catch {
                spool.log("cannot drop the superseded WARC record \(drop.responseID) from \(drop.folder)/\(drop.file): \(error)")
                left.append(drop)
            }
        }
        if left == noted { return }
        do {
            if left.isEmpty {
                try FileSystem.unlink(path)
            } else {
                try write(left, to: path, list: list, spool: spool)
            }
        } catch {
            spool.log("cannot update \(path): \(error)")
        }
    }

    /// Carries out every drop noted in the spool that can be (see `carryOut`): a worker starts or ends.
    static func sweep(_ spool: Spool) {
        guard let lists = try? FileSystem.listDirectory(spool.warc.drops) else { return }
        for list in lists {
            guard let keys = try? FileSystem.listDirectory(spool.warc.drops(ofList: list)) else { continue }
            for key in keys where !key.hasPrefix(".") {
                do throws(WARCError) {
                    let marks = try WARCMarks(keys: [key: key], ofList: list, spool: spool)
                    defer { marks.close() }
                    carryOut(ofList: list, key: key, mark: marks.mark(of: key), spool: spool)
                } catch {
                    spool.log("cannot drop the superseded WARC records of \(list)/\(key): \(error)")
                }
            }
        }
    }

    private static func write(_ drops: [Drop], to path: String, list: String, spool: Spool) throws(WARCError) {
        let text = drops.map { "\($0.responseID) \($0.file) \($0.folder)\n" }.joined()
        do {
            try FileSystem.ensureDirectories(spool.warc.drops(ofList: list))
            try spool.scratch.writeWhole(Array(text.utf8), to: path, durable: true)
        } catch {
            throw WARCError("cannot write \(path)", error)
        }
    }
}
