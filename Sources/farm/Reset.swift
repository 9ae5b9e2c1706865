import ArgumentParser
import FarmControl

/// `farm reset`: stop everything and delete every list, job and file: the spool as on first launch.
struct Reset: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Stop everything and delete every list, job and file (the spool as on first launch).")

    @OptionGroup var options: SpoolOptions

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.reset()
    }
}
