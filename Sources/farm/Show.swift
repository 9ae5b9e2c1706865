import ArgumentParser
import FarmStatus

/// `farm show LIST INDEX`: the viewer. Prints the absolute path of the resource's display image, or
/// says on stderr why there is none yet (queued, downloading 45%, failed: HTTP 404) and exits 1.
struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print where the display image of one resource is, or why there is none.",
        discussion: "INDEX is the 0-based `index` of `farm status LIST`.")

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
