import FarmSystem

extension Spool {
    /// Removes the temporaries of writers that were killed half-way, which nobody else would ever
    /// clean: under files/<list>/ (at any depth: an unpacked ZIP's entries are written in its folders),
    /// every name `AtomicFile` gave a temporary, which every writer of outputs uses; in tmp/, staged
    /// sidecars, summaries, control files and registry entries (a dead coordinator's stage is
    /// `recover()`'s business). Returns how many it removed.
    ///
    /// Only `farm stop` calls it, once every farm process is gone, so no live writer owns any of them;
    /// a command running meanwhile (`farm scale`) stages in tmp/ for microseconds, so only entries at
    /// least `tmpAge` seconds old are taken from there.
    @discardableResult
    public func sweepTemporaries(tmpAge: Double = 2) -> Int {
        var removed = 0
        for list in FileSystem.names(files) where ListID.isValid(list) {
            removed += sweepTemporaries(in: outputDirectory(ofList: list))
        }
        let now = Clock.wall()
        for name in FileSystem.names(tmp) where !name.hasPrefix(Self.stagePrefix) {
            let path = tmp + "/" + name
            guard let st = try? FileSystem.lstat(path), now - st.changeTime >= tmpAge, !st.isDirectory else {
                continue
            }
            if (try? FileSystem.unlink(path)) != nil { removed += 1 }
        }
        return removed
    }

    private func sweepTemporaries(in directory: String) -> Int {
        var removed = 0
        for entry in (try? FileSystem.listEntries(directory)) ?? [] {
            let path = directory + "/" + entry.name
            if entry.isDirectory {
                removed += sweepTemporaries(in: path)
            } else if AtomicFile.isTemporary(entry.name), (try? FileSystem.unlink(path)) != nil {
                removed += 1
            }
        }
        return removed
    }
}
