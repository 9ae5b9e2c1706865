import ArgumentParser
import FarmControl
import FarmJSON

/// `farm failed [LIST] [--reason TEXT] [--json]`: the failed resources grouped by reason, with counts.
struct Failed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "failed", abstract: "List the failed resources, grouped by reason.")

    @OptionGroup var options: SpoolOptions

    @OptionGroup var filter: FailedFilter

    @Flag(help: "Print {groups: [{reason, count, resources}], total} as JSON.")
    var json = false

    func run() throws {
        let control = Control(spool: try options.open(create: false))
        let failures = try control.failures(of: filter.listRef, reason: filter.reason)
        if json {
            print(String(decoding: JSON.encode(failures), as: UTF8.self), terminator: "")
        } else {
            print(failures)
        }
    }
}
