import ArgumentParser
import FarmCommandLine
import FarmControl
import FarmHooks

/// `farm retry [LIST] [--reason TEXT]`: the failed resources that match go back to the queue.
struct Retry: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Queue the failed resources again (all, or those of LIST or of a reason).",
        discussion: """
            Queues again the failed resources that match, all of them when neither LIST nor --reason is \
            given, and says how many; the running farm downloads them again. Their attempts go on counting \
            from the last try. A resource whose delivery to an --out folder failed is delivered again. \
            Done resources are never touched (farm reload fetches a whole list again). With --hooks, the \
            hooks that failed run again, by the running farm's workers.

            EXAMPLES:
              farm retry
                  Every failed resource.
              farm retry --reason 'HTTP 503'
                  Those a busy server refused, once it is back.
            """ + ExitStatus.section([0: "Queued (perhaps none).", 1: "No such list, or the spool failed."]))

    @OptionGroup var options: SpoolOptions

    @OptionGroup var filter: FailedFilter

    @Flag(help: "Run the failed hooks again instead (farm failed --hooks lists them); the resources stay as they are.")
    var hooks = false

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        hooks ? try control.retryHooks(filter.listRef, reason: filter.reason)
            : try control.retry(filter.listRef, reason: filter.reason)
    }
}
