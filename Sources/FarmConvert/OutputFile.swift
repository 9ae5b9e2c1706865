import Glibc

/// Outputs appear whole or not at all (SPEC §2): written under a temporary name in the same directory,
/// then renamed into place. A crash leaves at most a stale `.tmp-<pid>` file, never a torn output.
enum OutputFile {
    /// Calls `write` with a temporary path next to `path`, then renames it to `path`.
    static func replace(_ path: String, what: String,
                        by write: (String) throws(ConvertError) -> Void) throws(ConvertError) {
        let temporary = path + ".tmp-\(getpid())"
        do {
            try write(temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ConvertError("cannot store the \(what): \(reason)")
        }
    }
}
