import ArgumentParser
import FarmSpool

/// `farm reload LIST`: a fresh download of every resource of one list; other lists are untouched.
struct Reload: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Download every resource of LIST again.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "The list's name (e.g. \"Set 1.json\").")
    var list: String

    func run() throws {
        let spool = try options.open(create: false)
        guard let (id, record) = spool.findList(list) else {
            throw FarmError("no list named \(list) in \(spool.root); `farm status` shows the lists")
        }
        let count = try spool.reload(list: id)
        print("reloading \(record.name): \(count) resource(s) queued again")
    }
}
