import ArgumentParser
import FarmControl

/// `farm retry [LIST] [--reason TEXT]`: the failed resources that match go back to the queue.
struct Retry: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Queue the failed resources again (all, or those of LIST or of a reason).")

    @OptionGroup var options: SpoolOptions

    @OptionGroup var filter: FailedFilter

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.retry(filter.listRef, reason: filter.reason)
    }
}
