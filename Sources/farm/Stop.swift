import ArgumentParser
import FarmControl

/// `farm stop`: every process ends; active jobs go back to the queue with their bytes kept.
struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop every farm process; active jobs go back to the queue, their bytes kept.")

    @OptionGroup var options: SpoolOptions

    func run() throws {
        print(try Control(spool: options.open(create: false)).stop())
    }
}
