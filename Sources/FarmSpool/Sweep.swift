import Glibc

extension Spool {
    /// Removes the temporaries of writers that were killed half-way, which nobody else would ever
    /// clean: next to the outputs in files/<list>/, a derived image's `<name>.tmp-<pid>` (FarmConvert's
    /// OutputFile) and, in an unpacked ZIP's folder, an entry's `.farm-zip-<hex>.part` (FarmZip); in
    /// tmp/, staged sidecars, summaries, control files and registry entries (a dead coordinator's
    /// stage is `recover()`'s business). Returns how many it removed.
    ///
    /// Only `farm stop` calls it, once every farm process is gone, so no live writer owns any of them;
    /// a command running meanwhile (`farm scale`) stages in tmp/ for microseconds, so only entries at
    /// least `tmpAge` seconds old are taken from there.
    @discardableResult
    public func sweepTemporaries(tmpAge: Double = 2) -> Int {
        var removed = 0
        for list in (try? Sys.listDirectory(files)) ?? [] where ListID.isValid(list) {
            let directory = files + "/" + list
            for name in (try? Sys.listDirectory(directory)) ?? [] {
                let path = directory + "/" + name
                if Self.isOutputTemporary(name) {
                    if unlink(path) == 0 { removed += 1 }
                } else if name.hasSuffix(".unzipped") {
                    for entry in (try? Sys.listDirectory(path)) ?? []
                    where entry.hasPrefix(".farm-zip-") && entry.hasSuffix(".part") {
                        if unlink(path + "/" + entry) == 0 { removed += 1 }
                    }
                }
            }
        }
        let now = Sys.now()
        for name in (try? Sys.listDirectory(tmp)) ?? [] where !name.hasPrefix("stage-") {
            let path = tmp + "/" + name
            guard let st = try? Sys.lstat(path), now - st.changeTime >= tmpAge, (st.st_mode & S_IFMT) != S_IFDIR else {
                continue
            }
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    /// `<output>.tmp-<pid>`: a derived image being written.
    static func isOutputTemporary(_ name: String) -> Bool {
        guard let dash = name.lastIndex(of: "-") else { return false }
        let pid = name[name.index(after: dash)...]
        return name[..<dash].hasSuffix(".tmp") && !pid.isEmpty && pid.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
