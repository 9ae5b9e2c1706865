import ArgumentParser

/// `farm demo`: the embedded default (a bundled sample set served from 127.0.0.1).
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the bundled sample set end to end (not built yet).")

    func run() throws {
        throw NotBuiltYet(feature: "farm demo")
    }
}

/// A command whose issue has not landed: one line, non-zero exit, no usage text.
struct NotBuiltYet: Error, CustomStringConvertible {
    let feature: String
    var description: String { "\(feature) is not built yet: it comes with a later issue (see README.md)." }
}
