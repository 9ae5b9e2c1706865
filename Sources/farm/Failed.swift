import ArgumentParser
import FarmControl
import FarmJSON

/// `farm failed [LIST] [--reason TEXT] [--json]`: the failed resources grouped by reason, with counts.
struct Failed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "failed", abstract: "List the failed resources, grouped by reason.",
        discussion: """
            Lists the resources that failed for good, of every list or of LIST, grouped by reason (HTTP \
            404, unsupported content, checksum mismatch...), the largest group first, each resource with \
            its list, index, URL and attempts. --reason keeps those whose reason contains TEXT. failed only \
            reads the spool; farm retry queues them again. With --hooks, the resources whose hook failed \
            instead (an exit status other than 0, a time-out, a program that could not start), grouped by \
            how; farm retry --hooks runs them again.

            EXAMPLES:
              farm failed
                  Every failure, by reason.
              farm failed "Set 1.json" --reason 'HTTP 5'
                  The server errors of one list.

            EXIT STATUS:
              0   Listed, or none failed.
              1   No such list, or no spool there.
              64  The command line does not parse.
            """)

    @OptionGroup var options: SpoolOptions

    @OptionGroup var filter: FailedFilter

    @Flag(help: "Print {groups: [{reason, count, resources}], total} as JSON.")
    var json = false

    @Flag(help: "The resources whose hook (farm add --on-done, --on-error) failed, by how, instead.")
    var hooks = false

    func run() throws {
        let control = Control(spool: try options.open(create: false))
        let failures = hooks ? try control.hookFailures(of: filter.listRef, reason: filter.reason)
            : try control.failures(of: filter.listRef, reason: filter.reason)
        if json {
            print(String(decoding: JSON.encode(failures), as: UTF8.self), terminator: "")
        } else {
            print(failures)
        }
    }
}
