import ArgumentParser
import Foundation
import Glibc

/// `--dir`, shared by the benchmarks that write: where each makes the one directory it works in (its
/// spools, manifests and outputs), which it removes when it ends.
struct Workspace: ParsableArguments {
    @Option(help: "Directory to work in (a tmpfs or a disk): the run makes its own directory there and removes it.")
    var dir = NSTemporaryDirectory()

    /// Makes `farm-<name>-<pid>` in `dir` and returns its absolute path (the children it is handed to,
    /// nginx among them, do not share our working directory's meaning). The caller removes it.
    func make(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: dir).standardizedFileURL.path + "/farm-\(name)-\(getpid())"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
