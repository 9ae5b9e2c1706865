import ArgumentParser
import FarmControl
import FarmSystem
import Foundation
import SystemPackage

/// `farm add [SOURCE]`: the coordinator. Enqueues every resource of a manifest, atomically.
struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Enqueue every resource of a manifest (a zip of JSON lists, or one JSON list).",
        discussion: "SOURCE is an http(s) URL or a local path; without it, the original app's manifest is fetched.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "An http(s) URL or a path to a .zip or .json manifest.")
    var source: String?

    func run() throws {
        let spool = try options.open()
        // A big manifest takes seconds to stage: show how far it is, on a terminal only (one line, redrawn).
        let terminal = FileDescriptor.standardError.isTerminal
        var shown = false
        let added = try Control(spool: spool).add(source) { staged, total in
            guard terminal else { return }
            FileHandle.standardError.write(Data("\rfarm add: \(staged)/\(total) jobs staged".utf8))
            shown = true
        }
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        for line in added.lines { print(line) }
    }
}
