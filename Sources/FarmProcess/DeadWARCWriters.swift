import FarmSpool
import FarmWARC

/// The WARC files (SPEC §18) of writers that died: finished (a torn tail cut, the finished name given) by the
/// supervisor when it starts and when it sees a worker die, and by `farm recover`, so that a list's folder
/// holds no `.open` file for long whose writer is gone, whichever recovery runs. A live writer's files are
/// left alone (WARCRecovery tells them by their flock). A spool no list of which has `--warc` pays one failed
/// directory listing.
public enum DeadWARCWriters {
    /// Returns how many files it finished.
    @discardableResult
    public static func finish(_ spool: Spool) -> Int {
        var finished = 0
        for folder in spool.warc.folderPaths() {
            do {
                let done = try WARCRecovery.recover(directory: folder)
                finished += done.count
                for file in done where file.cutBytes > 0 {
                    spool.log("WARC file \(folder)/\(file.name) finished: \(file.records) records kept, "
                        + "a torn tail of \(file.cutBytes) bytes cut off")
                }
            } catch {
                spool.log("cannot finish the WARC files of dead writers in \(folder): \(error)")
            }
        }
        return finished
    }
}
