import ArgumentParser
import FarmControl

/// `farm stop`: every process ends; active jobs go back to the queue with their bytes kept.
struct Stop: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop every farm process; active jobs go back to the queue, their bytes kept.")

    @OptionGroup var options: SpoolOptions

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.stop()
    }
}
