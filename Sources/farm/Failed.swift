import ArgumentParser
import FarmControl
import FarmJSON

/// `farm failed [LIST] [--reason TEXT] [--json]`: the failed resources grouped by reason, with counts.
struct Failed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "failed", abstract: "List the failed resources, grouped by reason.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "Only this list (its name, e.g. \"Set 1.json\", or id).")
    var list: String?

    @Option(help: "Only the resources whose reason contains TEXT (e.g. 'HTTP 503').")
    var reason: String?

    @Flag(help: "Print {groups: [{reason, count, resources}], total} as JSON.")
    var json = false

    func run() throws {
        let failures = try Control(spool: options.open(create: false)).failures(of: list.map(ListRef.typed),
                                                                                reason: reason)
        if json {
            print(String(decoding: JSON.encode(failures), as: UTF8.self), terminator: "")
        } else {
            print(failures)
        }
    }
}
