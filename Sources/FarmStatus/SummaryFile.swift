import FarmJSON
import FarmRegistry
import FarmSpool
import FarmSystem

/// `status/summary.json`: the whole-spool summary as the watcher last wrote it (one line of JSON,
/// replaced by rename, at least once a second while the watcher lives).
public enum SummaryFile {
    /// A summary older than this is not trusted: its watcher is stuck or gone.
    public static let freshness = 2.0

    public static func path(_ spool: Spool) -> String { spool.status.summary }

    /// Replaces the summary atomically (staged in tmp/).
    public static func write(_ document: StatusDocument, to spool: Spool) throws(StatusError) {
        do { try spool.scratch.writeWhole(JSON.encode(document), to: path(spool)) } catch {
            throw StatusError(.io, "cannot replace \(path(spool)): \(error)")
        }
    }

    /// What tells one summary from the next, in one stat: the watcher replaces the file by rename, so each
    /// is a new inode. For a reader that waits for the next (`farm wait`); nil when there is none.
    public static func version(_ spool: Spool) -> FileVersion? { FileSystem.version(path(spool)) }

    /// The summary and its age in seconds, or nil when there is none (or it does not parse).
    public static func read(_ spool: Spool) -> (document: StatusDocument, age: Double)? {
        guard let modified = (try? FileSystem.stat(path(spool)))?.modificationTime,
              let bytes = try? FileSystem.readFile(path(spool)),
              let document = JSON.decode(StatusDocument.self, from: bytes) else { return nil }
        return (document, max(0, Clock.wall() - modified))
    }
}

/// Where readers get the summary, so that `farm status` answers whether or not anything runs.
///
/// `summary` is for the views that follow the watcher's file as it changes (`farm top`, `farm serve`'s
/// events): its last summary when one runs and its file is fresh, else a scan of the spool. `current` is
/// for a reader that answers once (`farm status`, aria2's RPC, the metrics page): the spool as of the
/// moment it asks, never older. The watcher's file can be a moment behind the spool (up to its throttle,
/// more on a loaded machine), so a summary read after a document that showed a job done could show it
/// not done yet. `current` asks the watcher instead (`ask`): a file created in status/ reaches it after
/// every change made before it (one inotify queue keeps its order), and it answers with what it knows
/// then; with no watcher, or no answer within `answerWait`, a scan, which reads the spool after the ask.
/// Stateless.
public enum StatusReader {
    /// How long `current` waits for the watcher's answer before it scans.
    public static let answerWait = 1.0

    public static func summary(_ spool: Spool) -> StatusDocument {
        summary(spool, watcherRuns: spool.registry.processes().contains(where: { $0.role == .watcher }))
    }

    /// `summary(_:)` for a reader that knows whether a watcher runs: looking costs a lock tried on each
    /// process's entry, and a reader that follows every summary (`farm wait`) looks once a second.
    public static func summary(_ spool: Spool, watcherRuns: Bool) -> StatusDocument {
        if watcherRuns, let (document, age) = SummaryFile.read(spool), age < SummaryFile.freshness {
            return document
        }
        return StatusScan.summary(spool)
    }

    /// The whole-spool summary as of now or later (see above).
    public static func current(_ spool: Spool) -> StatusDocument {
        if hasLiveWatcher(spool), let answer = ask(spool) { return answer }
        return StatusScan.summary(spool)
    }

    /// A watcher runs and its summary is fresh (one that stopped answering is not waited for).
    private static func hasLiveWatcher(_ spool: Spool) -> Bool {
        spool.registry.processes().contains(where: { $0.role == .watcher })
            && (SummaryFile.read(spool).map { $0.age < SummaryFile.freshness } ?? false)
    }

    /// The watcher's answer to an ask made now; nil when the ask cannot be made (a spool this user
    /// cannot write) or is not answered in time. Whatever it leaves (the ask, the answer) is removed.
    static func ask(_ spool: Spool) -> StatusDocument? {
        let nonce = Nonce.nextHex()
        let ask = spool.status.askPath(nonce), answer = spool.status.answerPath(nonce)
        guard (try? FileSystem.createFile(ask, [UInt8]())) != nil else { return nil }
        defer {
            try? FileSystem.unlink(ask)
            try? FileSystem.unlink(answer)
        }
        var document: StatusDocument?
        // Answered within milliseconds on an idle machine: looked for every millisecond.
        Clock.poll(every: 0.001, for: answerWait) {
            guard let bytes = try? FileSystem.readFile(answer) else { return false }
            document = JSON.decode(StatusDocument.self, from: bytes)
            return true
        }
        return document
    }

    /// The watcher's answer to ask `nonce`: `document`, which knows every change made before the ask.
    public static func answer(_ nonce: String, with document: StatusDocument, in spool: Spool) throws(StatusError) {
        let path = spool.status.answerPath(nonce)
        do { try spool.scratch.writeWhole(JSON.encode(document), to: path) } catch {
            throw StatusError(.io, "cannot write \(path): \(error)")
        }
    }
}
