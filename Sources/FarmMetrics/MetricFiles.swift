// Metrics across processes
// ========================
//
// farm is many processes that share only the spool, and any of them may be killed with SIGKILL at any
// moment. Its metrics (SPEC §10) are of two kinds.
//
// Gauges are read from the spool whenever metrics are asked for (MetricsPage): queued, active and done
// resources and the workers from the status (StatusReader: the watcher's summary, else a scan), the
// failed ones by reason from their outcome records, the paused flag from control/. Nothing to keep.
//
// Counters only the process that counts can know: bytes downloaded, retries, requests and errors per
// host and the seconds of each transfer (workers), reclaims (workers and the supervisor). Each such
// process records them through swift-metrics into its `SpoolMetricsFactory`: in memory, an atomic add
// or a short lock, never a system call. Its `MetricsRecorder` replaces `metrics/<name>.json`, where
// <name> is the process's registration in procs/ (`<role>.<pid>.<nonce>.<host>`), with every total it has
// counted since it started: at most once a second when they changed, and a last time as it exits,
// before it ends its registration. Written beside it (`<name>.json.tmp-<pid>`) and renamed, the file
// is read whole or not at all; holding totals, never deltas, it may be read any number of times. A
// process killed with SIGKILL loses what it counted since its last write (a second at most), no more.
// The supervisor counts too, and it makes copies of itself (fork without exec, Spawn.swift): so every
// lock here is a `Locked` (Synchronization's Mutex breaks in copies), and nothing is staged in tmp/,
// whose names take a nonce from behind such a Mutex.
//
// Summing (`MetricFiles.collect`) holds an flock on metrics/fold.lock throughout. The file of a process
// whose registration is gone (procs/<name> absent or unlocked) will never be written again: it is
// folded into metrics/folded.json, which holds the totals of every process gone and the names of the
// files added to them. A fold reads folded.json, forgets the names whose file no longer exists, adds
// each dead file whose name is not there yet and notes its name, replaces folded.json (temporary +
// rename: the commit point), then deletes those dead files and the temporaries their writers left
// (a writer killed between its write and its rename). Killed anywhere, it is redone by the next
// fold and each file is still counted once: before the rename nothing changed, and after it the names
// stop a second addition. The sum is then folded.json plus the files of the live processes. Everyone
// who reads folds (`farm serve`'s GET /metrics, `farm metrics`), and so does the supervisor every few
// seconds, so metrics/ holds about one file per live process, plus folded.json and fold.lock.
//
// `farm reset` deletes metrics/ with the rest: the counters start again from 0, which Prometheus reads
// as a counter reset.
import FarmJSON
import FarmRegistry
import FarmSpool
import FarmSystem
import SystemPackage

/// The files of metrics/ and their fold (see the protocol above). Stateless; any process or thread.
public enum MetricFiles {
    static let foldedName = "folded.json"
    static let lockName = "fold.lock"
    private static let suffix = ".json"
    /// The most a file of metrics/ is read of: far more than a farm's hosts make.
    static let sizeLimit = 64 << 20

    /// The file of the process registered as `name`: `metrics/<name>.json`.
    static func path(_ spool: Spool, of name: String) -> String { spool.path(.metrics, name + suffix) }

    /// Every counter of every farm process that ever ran on the spool (since its last reset): those of
    /// the gone, after folding their files in, and those of the living as last written.
    public static func collect(_ spool: Spool) -> MetricValues {
        guard let lock = try? takeLock(spool, wait: true) else {
            // No lock to be had (metrics/ is unwritable): a sum without folding is still right.
            return sum(spool, fold: false)
        }
        defer { lock.closeQuietly() }
        return sum(spool, fold: true)
    }

    /// Folds the files of processes gone, unless someone else is folding now. For the supervisor's loop.
    public static func foldIfFree(_ spool: Spool) {
        guard let lock = try? takeLock(spool, wait: false) else { return }
        defer { lock.closeQuietly() }
        _ = sum(spool, fold: true)
    }

    /// The fold lock, held; nil when `wait` is false and another process holds it.
    private static func takeLock(_ spool: Spool, wait: Bool) throws(Errno) -> FileDescriptor? {
        let fd = try FileDescriptor.open(spool.path(.metrics, lockName), .readWrite, options: .create,
                                         permissions: 0o600)
        do {
            if wait {
                try fd.lock()
            } else if try !fd.tryLock() {
                fd.closeQuietly()
                return nil
            }
        } catch {
            fd.closeQuietly()
            throw error
        }
        return fd
    }

    /// folded.json plus every other file; with `fold`, the files of the dead are first folded into it.
    private static func sum(_ spool: Spool, fold: Bool) -> MetricValues {
        var folded = Folded.read(spool)
        let all = FileSystem.names(spool.metrics)
        let files = all.filter { $0.hasSuffix(suffix) && $0 != foldedName }.sorted()
        let names = Set(files.map { String($0.dropLast(suffix.count)) })
        // Files deleted by an earlier fold need their names no more; the others keep them until deleted.
        var changed = !folded.sources.isSubset(of: names)
        folded.sources.formIntersection(names)
        var live = MetricValues()
        var dead: [String] = []
        for file in files {
            let name = String(file.dropLast(suffix.count)), path = spool.path(.metrics, file)
            let alive = spool.registry.isRegistered(name)
            if folded.sources.contains(name) {
                if !alive { dead.append(path) }  // added by a fold that died before deleting it
                continue
            }
            guard let bytes = try? FileSystem.readFile(path, limit: sizeLimit) else { continue }
            guard let values = JSON.decode(MetricValues.self, from: bytes) else {
                // Only whole files are ever renamed in here: this one is foreign.
                if fold { spool.setAside(path, reason: "not a metrics file") }
                continue
            }
            if alive || !fold {
                live.add(values)
            } else {
                folded.totals.add(values)
                folded.sources.insert(name)
                dead.append(path)
                changed = true
            }
        }
        if fold && changed {
            do { try folded.write(spool) } catch {
                // Not committed: the dead files stay, and are counted once, by the next fold.
                spool.log("cannot write \(spool.metrics)/\(foldedName): \(error)")
                dead = []
            }
        }
        if fold {
            for path in dead { try? FileSystem.unlink(path) }
            removeDeadTemporaries(spool, all)
        }
        folded.totals.add(live)
        return folded.totals
    }
}

extension MetricFiles {
    /// Deletes the temporaries (`<file>.tmp-<pid>`) of dead writers: of a process file whose process
    /// is gone, or of folded.json, which only the holder of the fold lock (the caller) writes.
    fileprivate static func removeDeadTemporaries(_ spool: Spool, _ names: [String]) {
        for name in names where AtomicFile.isTemporary(name) {
            // `isTemporary` holds: the name ends in ".tmp-" and digits.
            let file = String(name[..<name.lastIndex(of: "-")!].dropLast(4))
            guard file.hasSuffix(suffix) else { continue }
            if file == foldedName || !spool.registry.isRegistered(String(file.dropLast(suffix.count))) {
                try? FileSystem.unlink(spool.path(.metrics, name))
            }
        }
    }
}

/// metrics/folded.json: the totals of the processes gone, and the names of the files added to them that
/// may still exist. A value, read and written under the fold lock only.
/// Hand-written, not a JSONRecord: `totals` has MetricValues' own codec; `sources` is a set written sorted.
struct Folded: JSONReadable, JSONWritable {
    var totals = MetricValues()
    var sources: Set<String> = []

    init() {}

    init(json: JSONValue) throws(JSONMismatch) {
        totals = try json.decode("totals")
        sources = Set(try json.decode("sources") as [String])
    }

    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("sources", sources.sorted())
        json.member("totals", totals)
        json.endObject()
    }

    /// The file's content; nothing yet when there is none. One that does not parse is set aside (its
    /// totals are lost: only a foreign hand can have written it).
    static func read(_ spool: Spool) -> Folded {
        let path = spool.path(.metrics, MetricFiles.foldedName)
        guard let bytes = try? FileSystem.readFile(path, limit: MetricFiles.sizeLimit) else { return Folded() }
        guard let folded = JSON.decode(Folded.self, from: bytes) else {
            spool.setAside(path, reason: "not the folded metrics")
            return Folded()
        }
        return folded
    }

    func write(_ spool: Spool) throws(Errno) {
        try AtomicFile.write(JSON.encode(self), to: spool.path(.metrics, MetricFiles.foldedName))
    }
}
