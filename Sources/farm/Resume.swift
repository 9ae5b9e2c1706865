import ArgumentParser
import FarmControl

/// `farm resume`: transfers continue from the byte they reached.
struct Resume: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume every transfer from the byte it reached.")

    @OptionGroup var options: SpoolOptions

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.setPaused(false)
    }
}
