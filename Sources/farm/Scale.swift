import ArgumentParser
import FarmControl
import FarmSpool

/// `farm scale N [--host H]`: the desired number of workers of one host (this one by default), applied
/// live by that host's supervisor within a second.
struct Scale: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Change the number of workers (1 to 64) of this host, or another one, while the farm runs.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "How many workers to run.")
    var workers: Int

    @Option(help: "The host (as `farm ps` shows it) whose workers to change (default: this one).")
    var host: String?

    func validate() throws {
        try Control.check(workers: workers)
    }

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        // Waits (briefly) to report what happened rather than what was asked.
        try control.scale(to: workers, settle: 5, host: host.map { FarmHost(name: $0) })
    }
}
