import ArgumentParser
import FarmSpool
import FarmStatus

/// `farm reload LIST`: a fresh download of every resource of one list; other lists are untouched.
struct Reload: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload", abstract: "Download every resource of LIST again.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "The list's name (e.g. \"Set 1.json\").")
    var list: String

    func run() throws {
        let spool = try options.open(create: false)
        let found = try ListLookup.find(spool, list)
        let count = try spool.reload(list: found.id)
        print("reloading \(found.record.name): \(count) resource(s) queued again")
    }
}
