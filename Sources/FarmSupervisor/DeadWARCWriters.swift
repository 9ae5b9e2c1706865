import FarmSpool
import FarmWARC

/// The WARC files (SPEC §18) of workers that died: finished by the supervisor when it starts and when it
/// sees a worker die, so that a list's folder holds no `.open` file for long whose writer is gone. A live
/// writer's files are left alone (WARCRecovery tells them by their flock). A spool no list of which has
/// `--warc` pays one failed directory listing.
enum DeadWARCWriters {
    static func finish(_ spool: Spool) {
        for folder in spool.warc.folderPaths() {
            do {
                for done in try WARCRecovery.recover(directory: folder) where done.cutBytes > 0 {
                    spool.log("WARC file \(folder)/\(done.name) finished: \(done.records) records kept, "
                        + "a torn tail of \(done.cutBytes) bytes cut off")
                }
            } catch {
                spool.log("cannot finish the WARC files of dead workers in \(folder): \(error)")
            }
        }
    }
}
