import ArgumentParser
import FarmControl

/// `farm limit [RATE]`: caps the bandwidth of every transfer on this host together, live (SPEC §12).
struct Limit: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "limit",
        abstract: "Cap the bytes a second of every transfer on this host together, live (0: no cap).",
        discussion: "Without RATE, says the cap in force. RATE is bytes a second, with K, M or G for powers of 1024.")

    @OptionGroup var options: SpoolOptions

    @Argument(help: "Bytes a second: 500K, 2M, 1.5G; 0 lifts the cap.")
    var rate: String?

    func verb(_ control: Control) throws -> any CustomStringConvertible {
        guard let rate else { return control.bandwidthLimit }
        return try control.setBandwidthLimit(try Control.bandwidth(rate))
    }
}
