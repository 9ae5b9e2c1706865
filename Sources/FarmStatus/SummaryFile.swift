import FarmJSON
import FarmSpool
import FarmSystem

/// `status/summary.json`: the whole-spool summary as the watcher last wrote it (one line of JSON,
/// replaced by rename, at least once a second while the watcher lives).
public enum SummaryFile {
    /// A summary older than this is not trusted: its watcher is stuck or gone.
    public static let freshness = 2.0

    public static func path(_ spool: Spool) -> String { spool.summaryFile }

    /// Replaces the summary atomically (staged in tmp/).
    public static func write(_ document: StatusDocument, to spool: Spool) throws(StatusError) {
        do { try spool.writeWhole(JSON.encode(document), to: path(spool)) } catch {
            throw StatusError(.io, "cannot replace \(path(spool)): \(error)")
        }
    }

    /// The summary and its age in seconds, or nil when there is none (or it does not parse).
    public static func read(_ spool: Spool) -> (document: StatusDocument, age: Double)? {
        guard let modified = (try? FileSystem.stat(path(spool)))?.modificationTime,
              let bytes = try? FileSystem.readFile(path(spool)),
              let document = JSON.decode(StatusDocument.self, from: bytes) else { return nil }
        return (document, max(0, Clock.wall() - modified))
    }
}

/// Where readers get the summary: from the watcher when one runs and its file is fresh, else from
/// a scan of the spool, so `farm status` answers whether or not anything runs. Stateless.
public enum StatusReader {
    public static func summary(_ spool: Spool) -> StatusDocument {
        if spool.processes().contains(where: { $0.role == .watcher }), let (document, age) = SummaryFile.read(spool),
           age < SummaryFile.freshness {
            return document
        }
        return StatusScan.summary(spool)
    }
}
