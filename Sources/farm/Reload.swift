import ArgumentParser
import FarmControl

/// `farm reload LIST`: a fresh download of every resource of one list; other lists are untouched.
struct Reload: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload", abstract: "Download every resource of LIST again.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "The list's name (e.g. \"Set 1.json\") or id.")
    var list: String

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.reload(.typed(list))
    }
}
