import ArgumentParser
import FarmCommandLine
import FarmStatus

/// `farm show LIST INDEX`: the viewer. Prints the absolute path of the resource's display image, or
/// says on stderr why there is none yet (queued, downloading 45%, failed: HTTP 404) and exits 1.
struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print where the display image of one resource is, or why there is none.",
        discussion: """
            Prints the absolute path of the display image of one resource: the JPG or PNG itself, page 1 of \
            a PDF rendered to PNG, or the first image inside a ZIP. When there is none yet, it says why on \
            standard error (queued, downloading 45%, failed: HTTP 404) and exits 1. INDEX is the 0-based \
            index of farm status LIST. show only reads the spool.

            EXAMPLES:
              xdg-open "$(farm show "Set 1.json" 0)"
                  Open the first resource's image.
            """ + ExitStatus.section([
                0: "The path is printed.",
                1: """
                    No image yet (the reason is on standard error), no such list or
                    index, or no spool there.
                    """,
            ]))

    @OptionGroup var options: SpoolOptions

    @Argument(help: "A list's name or id.")
    var list: String

    @Argument(help: "The resource's 0-based index in the list.")
    var index: Int

    func run() throws {
        let spool = try options.open(create: false)
        let found = try ListLookup.find(spool, list)
        print(try Viewer.image(spool, list: found, index: index))
    }
}
