import ArgumentParser
import FarmControl

/// `farm scale N`: the desired number of workers, applied live by the supervisor within a second.
struct Scale: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Change the number of workers (1 to 64) while the farm runs.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "How many workers to run.")
    var workers: Int

    func validate() throws {
        try Control.check(workers: workers)
    }

    func run() throws {
        // Waits (briefly) to report what happened rather than what was asked.
        print(try Control(spool: options.open(create: false)).scale(to: workers, settle: 5))
    }
}
