import ArgumentParser
import FarmControl

/// `farm pause`: every transfer stops where it is, keeping its bytes and lease; nothing new is claimed.
struct Pause: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause every transfer (bytes and leases are kept).")

    @OptionGroup var options: SpoolOptions

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        try control.setPaused(true)
    }
}
