import ArgumentParser
import FarmControl
import FarmSpool

/// `farm scale N [--transfers T] [--host H]`: the desired number of workers of one host (this one by
/// default), applied live by that host's supervisor within a second; and the transfers of every worker,
/// which the running workers follow.
struct Scale: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Change the number of workers (1 to 64) of this host, or another one, while the farm runs.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "How many workers to run.")
    var workers: Int

    @Option(help: "Transfers each worker runs at once, on every host (1 to 256; default: unchanged); workers × transfers download at once.")
    var transfers: Int?

    @Option(help: "The host (as `farm ps` shows it) whose workers to change (default: this one).")
    var host: String?

    func validate() throws {
        try Control.check(workers: workers)
        if let transfers { try Control.check(transfers: transfers) }
    }

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        if let transfers { try control.scale(transfers: transfers) }
        // Waits (briefly) to report what happened rather than what was asked.
        return try control.scale(to: workers, settle: 5, host: host.map { FarmHost(name: $0) })
    }
}
