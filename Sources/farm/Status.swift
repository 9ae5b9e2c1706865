import ArgumentParser
import FarmJSON
import FarmSpool
import FarmStatus

/// `farm status [LIST] [--json]`: the app's first screen (every list) or its second (one list's
/// resources), once. Answers whether or not anything runs: from the watcher's summary when one is
/// live, else from a scan of the spool.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show every list with its progress, or the resources of one list.",
        discussion: """
            Without LIST, prints every list with its state (Queuing..., Downloading..., Finished), its \
            counts and progress, the workers running and wanted, and whether the farm is paused. With \
            LIST, prints that list's counts and its resources: each one's index, status (Queueing, \
            Downloading 45%, Unzipping, Rendering, Done, Error), kind, and URL or error. LIST is a list's \
            name ("Set 1.json" or "Set 1") or its 16-hex-digit id. --json prints the same as one JSON \
            document, with where each resource's file and display image are.

            status answers whether or not a farm runs: from the watcher's summary when one is running, \
            else from a scan of the spool. It only reads the spool.

            EXAMPLES:
              farm status
                  Every list, one line each.
              farm status "Set 1"
                  The resources of the list Set 1.json.
              farm status --json
                  The whole-spool document, for scripts.

            EXIT STATUS:
              0   Printed.
              1   There is no spool there, or no such list.
              64  The command line does not parse.
            """)

    @OptionGroup var options: SpoolOptions

    @Argument(help: "A list's name or id; without it, the summary of every list.")
    var list: String?

    @Flag(help: "Print the status document as JSON (SPEC §4).")
    var json = false

    func run() throws {
        let spool = try options.open(create: false)
        guard let list else {
            let summary = StatusReader.summary(spool)
            print(json ? String(decoding: JSON.encode(summary, .pretty), as: UTF8.self)
                : StatusText.summary(summary), terminator: json ? "" : "\n")
            return
        }
        let found = try ListLookup.find(spool, list)
        guard let view = ListView.build(spool, listID: found.id) else {
            throw FarmError("\(found.record.name) was removed from the spool while being read; try again")
        }
        print(json ? String(decoding: JSON.encode(view, .pretty), as: UTF8.self) : StatusText.list(view),
              terminator: json ? "" : "\n")
    }
}
