import FarmSpool
import FarmSystem
import SystemPackage

extension Dedup {
    /// Removes the URL partials nobody can want: empty ones (nothing to resume: a taker makes the file
    /// again), those of a URL whose result is stored, and all of them when no job is queued (after a stop,
    /// every job not finished is). Only `farm stop` calls it, once every farm process is gone. Returns
    /// how many it removed.
    @discardableResult
    public func sweepURLPartials() -> Int {
        var removed = 0
        let names = FileSystem.names(spool.partial).filter { $0.hasPrefix(Self.urlPartialPrefix) }
        if names.isEmpty { return 0 }
        let queued = hasFile(under: spool.queue)
        for name in names {
            let key = String(name.dropFirst(Self.urlPartialPrefix.count))
            guard Self.isDigest(key), let st = try? FileSystem.lstat(spool.path(\.partial, name)) else { continue }
            let stored = urlRecord(key: key).map(holdsBytes) ?? false
            guard st.size == 0 || stored || !queued else { continue }
            if FileSystem.unlinkUnlessLocked(spool.path(\.partial, name)) { removed += 1 }
        }
        return removed
    }

    /// Whether some regular file (a queued job) is anywhere under `directory`; stops at the first.
    private func hasFile(under directory: String) -> Bool {
        for entry in (try? FileSystem.listEntries(directory)) ?? [] {
            if entry.isDirectory ? hasFile(under: directory + "/" + entry.name) : true { return true }
        }
        return false
    }
}
