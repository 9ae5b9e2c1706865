import ArgumentParser
import FarmControl

/// `farm scale N`: the desired number of workers, applied live by the supervisor within a second.
struct Scale: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Change the number of workers (1 to 64) while the farm runs.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "How many workers to run.")
    var workers: Int

    func validate() throws {
        try Control.check(workers: workers)
    }

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        // Waits (briefly) to report what happened rather than what was asked.
        try control.scale(to: workers, settle: 5)
    }
}
