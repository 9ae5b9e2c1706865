import FarmSystem

extension Spool {
    /// `farm reset`: deletes every list, job, output and setting; the spool is as on first launch.
    /// The caller stops every process first. Killed half-way, running it again finishes.
    public func erase() throws(SpoolError) {
        for name in (try? FileSystem.listDirectory(root)) ?? [] where root + "/" + name != marker {
            let path = root + "/" + name
            do {
                if name == "control" {
                    // add.lock stays: an `add` waiting on it must keep the lock it is waiting for.
                    for entry in try FileSystem.listDirectory(path) where path + "/" + entry != control.addLock {
                        try FileSystem.removeTree(path + "/" + entry)
                    }
                } else {
                    try FileSystem.removeTree(path)
                }
            } catch {
                throw SpoolError(.io, "cannot delete \(path)", cause: error)
            }
        }
        try makeSubdirectories()
    }
}
