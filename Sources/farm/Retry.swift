import ArgumentParser
import FarmControl

/// `farm retry [LIST] [--reason TEXT]`: the failed resources that match go back to the queue.
struct Retry: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Queue the failed resources again (all, or those of LIST or of a reason).")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "Only this list (its name, e.g. \"Set 1.json\", or id).")
    var list: String?

    @Option(help: "Only the resources whose reason contains TEXT (e.g. 'HTTP 503').")
    var reason: String?

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.retry(list.map(ListRef.typed), reason: reason)
    }
}
