import FarmSystem

/// Outputs appear whole or not at all (SPEC §2): written under `AtomicFile`'s temporary name in the same
/// directory, then renamed into place. A crash leaves at most a stale temporary (which `farm stop`
/// sweeps), never a torn output.
enum OutputFile {
    /// Calls `write` with a temporary path next to `path`, then renames it to `path`.
    static func replace(_ path: String, what: String,
                        by write: (String) throws(ConvertError) -> Void) throws(ConvertError) {
        try AtomicFile.replace(path, by: write) {
            ConvertError.write("cannot store the \(what): \($0)", noSpace: $0.isNoSpace)
        }
    }
}
