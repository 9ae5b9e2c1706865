import ArgumentParser

/// `farm demo`: the embedded default (a bundled sample set served from 127.0.0.1).
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the bundled sample set end to end (not built yet).")

    func run() throws {
        throw ValidationError("farm demo is not built yet: the worker and the demo origin come in later issues.")
    }
}
