import ArgumentParser
import Foundation

/// `--corpus`, shared by the benchmarks that serve generated files from nginx (peers, pieces, mirror):
/// where the files are generated, once, and kept between runs.
struct CorpusRoot: ParsableArguments {
    @Option(help: "Where the corpus is generated (once) and served from.")
    var corpus: String

    /// The folder's absolute path (nginx resolves relative paths against its prefix), made when missing.
    func make() throws -> String {
        let path = URL(fileURLWithPath: corpus).standardizedFileURL.path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
