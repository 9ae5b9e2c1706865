import ArgumentParser

/// `--sets`, `--files`, `--large-files`, `--large-mib`: which of `Corpus`'s sets the peers section downloads,
/// and their sizes; `all` takes them too and hands them on.
struct CorpusSets: ParsableArguments {
    @Option(help: "The sets, comma-separated: small, large, or both.") var sets = "small,large"
    @Option(help: "Files in the small set.") var files = 5000
    @Option(help: "Files in the large set.") var largeFiles = 8
    @Option(help: "MiB of each file of the large set.") var largeMib = 64

    /// The sets named, each with its label, generated under `root` (once: they are kept between runs).
    func make(under root: String) throws -> [(label: String, corpus: Corpus)] {
        let named = sets.split(separator: ",").map(String.init)
        var made: [(label: String, corpus: Corpus)] = []
        if named.contains("small") { made.append(("small", try Corpus.small(count: files, root: root))) }
        if named.contains("large") { made.append(("large", try Corpus.large(count: largeFiles, mib: largeMib, root: root))) }
        return made
    }

    /// The options that give these sets, for a section run by `all`.
    var arguments: [String] {
        ["--sets", sets, "--files", String(files), "--large-files", String(largeFiles), "--large-mib", String(largeMib)]
    }
}
